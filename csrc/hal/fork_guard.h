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

// Throws the bad-fork error in a child forked after its parent used a hal device, and does nothing else (it
// does not count as a use). For entries that take the core's locks or wait for a device without starting
// work: a lock held by a parent thread at the fork, or a queue whose worker thread was not copied, would
// make them wait forever.
void throw_if_bad_fork();

// True in a child forked after its parent used a hal device.
bool in_bad_fork();

// True once this process has used a hal device (allocated, copied or launched on one).
bool device_used();

}  // namespace hal
