"""Inductor's kernel scheduling for hal devices (inductor_backends.py registers it)."""
from torch._inductor.scheduler import BaseScheduling
from torch.utils._ordered_set import OrderedSet

from torch_hal.compile.graph_devices import TRITON_PATH, graph_path


class HalScheduling(BaseScheduling):
    """Inductor's scheduling of kernels on a hal device: Triton's on GPUs. A host graph has no kernel left on
    the hal device after the rewrite (its kernels are CPU kernels over hal memory; only the boundary ops run
    on hal), so here the scheduling only answers the scheduler's bookkeeping, and a kernel is a bug worth
    naming."""

    def __new__(cls, scheduler):
        if graph_path() == TRITON_PATH:
            from torch_hal.compile.triton_graph import triton_scheduling

            return triton_scheduling(scheduler)
        return super().__new__(cls)

    def get_backend_features(self, device):
        return OrderedSet()

    def ready_to_flush(self) -> bool:
        return False

    def flush(self) -> None:
        pass

    def codegen_sync(self) -> None:
        pass

    def group_fn(self, sizes):
        self._kernel_on_host_accessible_device()

    def codegen_node(self, node) -> None:
        self._kernel_on_host_accessible_device()

    def codegen_template(self, *args, **kwargs):
        self._kernel_on_host_accessible_device()

    @staticmethod
    def _kernel_on_host_accessible_device():
        raise RuntimeError("torch_hal: Inductor was asked for a kernel on a host-accessible hal device after the "
                           "host graph rewrite (host_graph.py); please report it with the graph "
                           "(TORCH_LOGS=post_grad_graphs). backend=\"aot_eager\" runs the model meanwhile.")
