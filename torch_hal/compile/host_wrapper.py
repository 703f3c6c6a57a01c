"""The Python wrapper that Inductor generates for a host graph (host_graph.py): PythonWrapperCodegen, with

  - the graph's hal inputs taken as CPU views of their bytes in one call at the top (_C.compile_host_views,
    which keeps each view with its hal tensor for the next call), since Inductor lowered them as CPU tensors;
    except the inputs that only its C++ kernels take or that it returns as they are (the parameters a training
    forward saves for its backward), which need no view (a kernel takes the data pointer, which the hal tensor
    gives as well), only the wait for their device's stream (_C.compile_host_wait);
  - the graph's outputs that were hal tensors handed back as hal tensors in one call at its return
    (_C.compile_host_outputs), except the activations a training forward saves for its backward, which stay
    CPU tensors over the same memory;
  - the outputs that leave as hal tensors, whole or reinterpreted, and that only its C++ kernels write (a
    training backward's gradients, mostly) allocated as hal tensors from the start (_hal_output_allocator),
    which leave as they are;
  - every other buffer, temporaries included, a CPU tensor over the hal device's memory: outputs then leave
    without being copied, and the device's memory statistics and capacity count everything the compiled code
    allocates, as torch.cuda's count Inductor's buffers. Nor does it cost time: hal's caching allocator serves
    a buffer in fewer instructions than glibc's malloc (a compiled norm-model step on the host device: 24k
    fewer of its 2.37M than with temporaries from the CPU allocator, callgrind)."""
import re

from torch._inductor.codegen.wrapper import PythonWrapperCodegen
from torch._inductor.utils import DeferredLineBase
from torch._inductor.virtualized import V

from torch_hal import _C
from torch_hal.compile.graph_devices import graph_device_indices
from torch_hal.compile.host_graph import host_input_names, host_returned_devices


# The name the wrapper's header gives _C.compile_host_outputs, which its return line calls.
_OUTPUTS_CALL = "_hal_outputs"

# A C++ kernel of the graph, as the header defines it.
_CPP_KERNEL_DEFINITION = re.compile(r"^(\w+) = async_compile\.cpp_pybinding\(", re.MULTILINE)


def _line_text(line):
    """The text of one line of a wrapper buffer, or None (a deferred line that was dropped, a line context)."""
    if isinstance(line, str):
        return line
    if isinstance(line, DeferredLineBase):
        return line()
    return None


def _only_kernels_take(name: str, lines, kernels: set, returned_as_is: list) -> bool:
    """Whether the wrapper's lines use `name` (an input, or an output buffer) only as a whole argument of calls
    to its C++ kernels, in its size and stride assertions, in its del, and as a whole output that leaves as it
    is or as a hal tensor (`returned_as_is`: a parameter a training forward saves for its backward, which takes
    a hal tensor as well; an output buffer): the uses a hal tensor serves as well as its CPU view."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    for text in lines:
        if text is None or not word.search(text):
            continue
        line = text.strip()
        if line == f"del {name}" or line.startswith((f"assert_size_stride({name},", f"assert_alignment({name},")):
            continue
        if line.startswith(f"return {_OUTPUTS_CALL}(") and len(word.findall(line)) == returned_as_is.count(name):
            continue
        call = re.fullmatch(r"(\w+)\((.*)\)", line)
        if call and call.group(1) in kernels:
            arguments = [a.strip() for a in call.group(2).split(",")]
            if arguments.count(name) == len(word.findall(call.group(2))):
                continue
        return False
    return True


# An output that is a buffer seen through other sizes and strides (a training backward's bias gradient, summed
# into a [1, n] buffer and returned as [n]); reinterpret_tensor takes a hal tensor as well.
_REINTERPRETED_BUFFER = re.compile(r"reinterpret_tensor\((\w+), \([\d, ]*\), \([\d, ]*\), \d+\)")


def _returned_buffer(ref: str):
    """The buffer an output reference returns whole or reinterpreted, or None (an expression of anything else)."""
    if ref.isidentifier():
        return ref
    reinterpreted = _REINTERPRETED_BUFFER.fullmatch(ref)
    return reinterpreted.group(1) if reinterpreted else None


def _reuse_chain(buffer: str, texts) -> tuple:
    """The names `buffer`'s memory had before it, through the memory planner's plain reuses ("buf26 = buf8; del
    buf8  # reuse": the same memory, sizes and strides under a new name), from `buffer` back to the one allocated;
    and the indices of those reuse lines."""
    names, reuses = [buffer], []
    while True:
        reuse = re.compile(rf"{re.escape(names[-1])} = (\w+); del \1  # reuse")
        found = [(i, m.group(1)) for i, text in enumerate(texts)
                 if text is not None and (m := reuse.fullmatch(text.strip()))]
        if len(found) != 1:
            return names, reuses
        reuses.append(found[0][0])
        names.append(found[0][1])


def _graph_device_index() -> int:
    indices = graph_device_indices()
    return indices[0] if indices else _C.current_device()


class HostWrapperCodegen(PythonWrapperCodegen):
    def write_args(self, input_names):
        super().write_args(input_names)
        viewed = [name for name in host_input_names(V.graph.module) if name in input_names]
        if viewed:
            self._hal_viewed = viewed
            self.prefix.writeline(self._views_line(viewed))

    @staticmethod
    def _views_line(names) -> str:
        lhs = ", ".join(names) + ("," if len(names) == 1 else "")
        return f"{lhs} = _hal_views({', '.join(names)})"

    def finalize_prefix(self):
        """Called once the graph's lines are written, before the prefix joins them: the inputs that only C++
        kernels take leave the views line for a wait line, and the outputs that only C++ kernels write are
        allocated as hal tensors. A view costs a storage, a tensor and a Python object; the parameters of a
        training step, which mostly feed fused kernels, are many, and so are the gradients it returns."""
        super().finalize_prefix()
        kernels = set(_CPP_KERNEL_DEFINITION.findall(self.header.getvalue()))
        self._narrow_input_views(kernels)
        self._allocate_kernel_outputs_on_device(kernels)

    def _allocate_kernel_outputs_on_device(self, kernels: set) -> None:
        """Each output that leaves as a hal tensor of the graph's device, whole or reinterpreted (_returned_buffer),
        and that nothing but C++ kernels writes or reads, is allocated as that hal tensor (empty_strided_hal_output)
        instead of a CPU buffer in the device's memory: compile_host_outputs then hands it back as it is, rather
        than a new hal storage and tensor over the CPU buffer's bytes. Anything else on its lines (an extern
        kernel's out=, a view, a reuse of its memory for another buffer) keeps the CPU buffer. The memory an output
        takes over from buffers before it (_reuse_chain) is allocated as the hal tensor where every name it has
        had passes the same test."""
        refs = getattr(self, "_hal_output_refs", ())
        devices = getattr(self, "_hal_returned_devices", ())
        device = _graph_device_index()
        lines = self.wrapper_call._lines
        texts = [_line_text(line) for line in lines]
        buffers = [_returned_buffer(ref) for ref in refs]
        for buffer, returned_on in zip(buffers, devices):
            if returned_on != device or buffer is None or buffers.count(buffer) != 1:
                continue
            names, reuses = _reuse_chain(buffer, texts)
            allocation = f"{names[-1]} = empty_strided_cpu("
            at = [i for i, text in enumerate(texts) if text is not None and text.strip().startswith(allocation)]
            if len(at) != 1 or not texts[at[0]].rstrip().endswith(")") or ".as_strided(" in texts[at[0]]:
                continue
            others = [text for i, text in enumerate(texts) if i != at[0] and i not in reuses]
            if not all(_only_kernels_take(name, others, kernels, [buffer]) for name in names):
                continue
            lines[at[0]] = texts[at[0]].replace(allocation, f"{names[-1]} = empty_strided_hal_output(", 1)

    def _narrow_input_views(self, kernels: set) -> None:
        viewed = getattr(self, "_hal_viewed", None)
        if not viewed:
            return
        lines = [_line_text(line) for line in self.wrapper_call._lines]
        refs = getattr(self, "_hal_output_refs", ())
        devices = getattr(self, "_hal_returned_devices", ())
        returned_as_is = [ref for ref, device in zip(refs, devices) if device < 0]
        unviewed = [name for name in viewed if _only_kernels_take(name, lines, kernels, returned_as_is)]
        if not unviewed:
            return
        views_line = self._views_line(viewed)
        for i, line in enumerate(self.prefix._lines):
            if isinstance(line, str) and line.strip() == views_line:
                indent = line[: len(line) - len(line.lstrip())]
                kept = [name for name in viewed if name not in unviewed]
                narrowed = [indent + self._views_line(kept)] if kept else []
                narrowed.append(f"{indent}_hal_wait({', '.join(unviewed)})")
                self.prefix._lines[i:i + 1] = narrowed
                return

    def generate_return(self, output_refs):
        devices = host_returned_devices(V.graph.module)
        if not any(device >= 0 for device in devices):
            return super().generate_return(output_refs)
        self._hal_output_refs, self._hal_returned_devices = list(output_refs), devices
        self.wrapper_call.writeline(f"return {_OUTPUTS_CALL}(({', '.join(output_refs)}, ), {tuple(devices)!r})")

    def write_header(self) -> None:
        super().write_header()
        self.header.splice(
            f"""
                from torch_hal._C import compile_host_outputs as {_OUTPUTS_CALL}, compile_host_views as _hal_views
                from torch_hal._C import compile_host_wait as _hal_wait
                from torch_hal._C import host_buffer_allocator as _hal_buffer_allocator
                from torch_hal._C import host_output_allocator as _hal_output_allocator
                empty_strided_cpu = _hal_buffer_allocator({_graph_device_index()})
                empty_strided_hal_output = _hal_output_allocator({_graph_device_index()})
            """,
            strip=True,
        )
