"""hal tensors shared with other processes (torch_hal/multiprocessing_reductions.py over the adapter ABI's ipc
functions): the receiver maps the sender's memory, as torch.cuda's IPC does, so in-place changes cross."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

HOST_ACCESS = pytest.mark.parametrize("host_accessible", ["1", "0"], ids=["host_access", "no_host_access"])
# Start methods whose children do not inherit the parent's device state (a forked child of a process that
# used hal may not use it: hal/fork_guard.h).
START_METHODS = pytest.mark.parametrize("method", ["spawn", "forkserver"])


def devices_of(adapter: str):
    return [i for i in range(torch.hal.device_count()) if torch.hal.get_device_properties(i).adapter == adapter]

SCRIPT = textwrap.dedent("""
    import gc, sys
    import torch, torch_hal
    import torch.multiprocessing as mp

    def mappings_of(inode):
        # this process's mappings of the host device's shared memory file (/proc/self/maps: the inode is the
        # 5th field); None for other devices, whose mappings the driver keeps
        if inode is None:
            return None
        return sum(1 for line in open("/proc/self/maps") if line.split()[4:5] == [str(inode)])

    def writer(q, done, inode):
        before = mappings_of(inode)
        t, view = q.get(timeout=60)
        mapped = mappings_of(inode)
        same_storage = t.untyped_storage().data_ptr() == view.untyped_storage().data_ptr()
        t.add_(1)              # in place, in the sender's memory
        view.fill_(-5)         # through a view at a storage offset
        torch.hal.synchronize()
        del t, view
        gc.collect()
        done.put((before, mapped, same_storage, mappings_of(inode)))

    def arg_writer(t, done):
        t.mul_(10)
        torch.hal.synchronize()
        done.put("written")

    if __name__ == "__main__":
        ctx = mp.get_context(sys.argv[1])
        device = torch.device("hal", int(sys.argv[2]))
        base = torch.arange(10., device=device)
        view = base[2:6]
        inode = None
        if torch.hal.get_device_properties(device.index).adapter == "host":
            handle = torch_hal._C.ipc_export(base)["handle"]
            inode = int.from_bytes(handle[8:16], "little")  # the host device's handle: (device, inode) of its file
        q, done = ctx.Queue(), ctx.Queue()
        child = ctx.Process(target=writer, args=(q, done, inode))
        child.start()
        q.put((base, view))
        print("child mappings", done.get(timeout=120))
        child.join(60)
        print("exit", child.exitcode)
        print("after queue", base.cpu().tolist(), view.storage_offset())

        other = torch.ones(3, device=device)
        child = ctx.Process(target=arg_writer, args=(other[1:], done))  # a tensor as a process argument
        child.start()
        print(done.get(timeout=120))
        child.join(60)
        print("after arg", other.cpu().tolist())
        del base, view, other
        torch.hal.empty_cache()  # the children are gone: the memory goes back to the device
        print("ok")
""")


def run_script(tmp_path, *args, **env):
    script = tmp_path / "share.py"  # spawn children import their target from a file
    script.write_text(SCRIPT)
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=full_env,
                          timeout=300)


def check_shared(r, mappings: str):
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    out = r.stdout
    assert f"child mappings {mappings}" in out, out
    assert "exit 0" in out, out
    assert "after queue [1.0, 2.0, -5.0, -5.0, -5.0, -5.0, 7.0, 8.0, 9.0, 10.0] 2" in out, out
    assert "written" in out and "after arg [1.0, 10.0, 10.0]" in out, out
    assert out.rstrip().endswith("ok"), out


@HOST_ACCESS
@START_METHODS
def test_children_write_in_place_into_shared_host_device_memory(method, host_accessible, tmp_path):
    [index] = devices_of("host")[:1]
    r = run_script(tmp_path, method, str(index), TORCH_HAL_HOST_ACCESSIBLE=host_accessible)
    # The child mapped the memory file once for both tensors (one storage, as in the sender), and its
    # mapping was closed when it let go of them.
    check_shared(r, "(0, 1, True, 0)")


GPU_DEVICES = devices_of("nvidia")[:1] + devices_of("amd")[:1]


@pytest.mark.skipif(not GPU_DEVICES, reason="no NVIDIA or AMD hal device")
@pytest.mark.parametrize("index", GPU_DEVICES, ids=lambda i: f"hal:{i}")
@START_METHODS
def test_children_write_in_place_into_shared_gpu_memory(method, index, tmp_path):
    r = run_script(tmp_path, method, str(index))  # CUDA or HIP IPC handles
    check_shared(r, "(None, None, True, None)")


def test_adapters_without_ipc_send_tensors_by_value(tmp_path):
    # The example ASIC plugin leaves the ipc functions out of its table: its tensors still cross, as copies.
    from conftest import REPO_ROOT
    plugin = REPO_ROOT / "torch_hal" / "plugins" / "libexample_asic.so"
    script = tmp_path / "by_value.py"
    script.write_text(textwrap.dedent("""
        import torch, torch_hal
        import torch.multiprocessing as mp

        def asic():
            return next(torch.device("hal", i) for i in range(torch.hal.device_count())
                        if torch.hal.get_device_properties(i).adapter == "example_asic")

        def writer(q, done):
            t = q.get(timeout=60)
            t.add_(1)
            done.put((t.device.type, t.cpu().tolist()))

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            t = torch.zeros(3, device=asic())
            print("supported", torch_hal._C.ipc_supported(t.device.index))
            q, done = ctx.Queue(), ctx.Queue()
            child = ctx.Process(target=writer, args=(q, done))
            child.start()
            q.put(t)
            print("child", done.get(timeout=120))
            child.join(60)
            print("parent", t.cpu().tolist())
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, TORCH_HAL_ADAPTERS=str(plugin)))
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert "supported False" in r.stdout
    assert "child ('hal', [1.0, 1.0, 1.0])" in r.stdout, r.stdout
    assert "parent [0.0, 0.0, 0.0]" in r.stdout, r.stdout  # a copy: the parent's memory is untouched
