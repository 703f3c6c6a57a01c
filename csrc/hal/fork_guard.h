// Fork safety, as torch.cuda has it. A child made by fork() has none of its parent's threads (adapter
// stream workers, the copy engine's threads, a vendor runtime's own) and inherits every lock another
// thread held at the fork, so a child that touched a device its parent had used would wait forever.
// Instead, the child of a process that had used a device is marked, and every core entry that would
// reach an adapter raises an error that says to use the spawn start method.
#pragma once

namespace hal {

// Called at each core entry that reaches an adapter (stream validation, allocation): throws in a bad
// fork; the first call in a process arms the marking of children forked from then on.
void check_fork_safety();

// True in a child forked after its parent used a hal device.
bool in_bad_fork();

// True once this process has used a hal device (allocated, copied or launched on one).
bool device_used();

}  // namespace hal
