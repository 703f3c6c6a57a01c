// torch.accelerator.Graph for hal (PyTorch 2.12+): the GraphImplInterface that PyTorch's accelerator graph asks
// for, registered for the PrivateUse1 device type, forwarding to torch_hal.graphs.HALGraph.
#pragma once

namespace torch_hal {

// Registers hal's graph implementation with PyTorch's GraphImplRegistry, under the name PyTorch looks it up by
// (the renamed PrivateUse1 backend's). A no-op on PyTorch versions without the registry (2.11).
void register_accelerator_graph();

}  // namespace torch_hal
