kernel void workitem(global ulong *out)
{
   size_t i = get_global_linear_id();
   out[i * 12 + 0] = get_global_id(0) + get_global_id(1) * 3 + get_global_id(2) * 7;
   out[i * 12 + 1] = get_local_id(0) ^ get_local_id(1) ^ get_local_id(2);
   out[i * 12 + 2] = get_group_id(0) + get_group_id(1) + get_group_id(2);
   out[i * 12 + 3] = get_global_size(0) * get_global_size(1) * get_global_size(2);
   out[i * 12 + 4] = get_local_size(0) + get_enqueued_local_size(1);
   out[i * 12 + 5] = get_num_groups(0) + get_num_groups(2);
   out[i * 12 + 6] = get_work_dim();
   out[i * 12 + 7] = get_global_offset(0) + get_global_offset(1);
   out[i * 12 + 8] = get_local_linear_id();
   out[i * 12 + 9] = get_sub_group_id() + get_num_sub_groups();
   out[i * 12 + 10] = get_sub_group_local_id() + get_sub_group_size() + get_max_sub_group_size();
   out[i * 12 + 11] = get_enqueued_num_sub_groups();
}
