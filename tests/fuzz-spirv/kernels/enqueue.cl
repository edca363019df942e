// Device-side enqueue: blocks, ND-ranges and the default queue; events and
// blocks with local-memory arguments in kernels of their own.
kernel void
parent(global int *out, int n)
{
   queue_t q = get_default_queue();
   size_t square[2] = { 4, 4 };
   int scale = 3;

   if (get_global_id(0) != 0)
      return;
   enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(n),
                  ^{ out[get_global_id(0)] = (int)get_global_id(0) * scale; });
   enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_2D(square),
                  ^{ out[get_global_linear_id()] += 1; });
   enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP, ndrange_1D(2, n, 4),
                  ^{ out[get_global_id(0)] -= (int)get_enqueued_local_size(0); });
   out[n] = get_kernel_work_group_size(^{ out[0] = 1; }) +
            get_kernel_preferred_work_group_size_multiple(^{ out[1] = 2; });
}

kernel void
parent_events(global int *out)
{
   queue_t q = get_default_queue();
   clk_event_t first, second;

   enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(8), 0, NULL, &first,
                  ^{ out[get_global_id(0)] = 1; });
   enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(8), 1, &first, &second,
                  ^{ out[get_global_id(0)] += 1; });
   if (is_valid_event(second))
      release_event(second);
   release_event(first);
   clk_event_t user = create_user_event();
   set_user_event_status(user, CL_COMPLETE);
   release_event(user);
   enqueue_marker(q, 0, NULL, NULL);
}

kernel void
parent_local(global int *out)
{
   enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP, ndrange_1D(8, 4),
                  ^(local void *scratch) {
                     ((local int *)scratch)[get_local_id(0)] = 1;
                     work_group_barrier(CLK_LOCAL_MEM_FENCE);
                     out[get_global_id(0)] += ((local int *)scratch)[0];
                  },
                  16u);
}
