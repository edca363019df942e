kernel void async_copy(global const float4 *in, global float4 *out, local float4 *tile)
{
   event_t e = async_work_group_copy(tile, in + get_group_id(0) * 64, 64, 0);
   wait_group_events(1, &e);
   prefetch(in, 16);
   tile[get_local_id(0)] *= 2.0f;
   barrier(CLK_LOCAL_MEM_FENCE);
   e = async_work_group_strided_copy(out + get_group_id(0) * 64, tile, 32, 2, 0);
   wait_group_events(1, &e);
}
