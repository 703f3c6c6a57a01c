"""One rank of a torch.distributed run on hal devices: `python distributed_workers.py CASE RANK WORLD STORE_FILE`.

tests/python/test_distributed.py starts WORLD of these (one per rank, each on hal:RANK % device_count) and
reads their exit codes and output. Every case checks its results against the math done locally on the CPU.
"""
import datetime
import math
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F

import torch_hal  # noqa: F401  (registers hal and its c10d backend)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from reference_models import TinyTransformer, mlp, transformer_batch  # noqa: E402

ReduceOp = dist.ReduceOp


def rank_values(rank, n=6, dtype=torch.float32):
    """What rank `rank` contributes (CPU): distinct per rank and per element, exact in float32."""
    return (torch.arange(n, dtype=torch.float64) + 10 * rank + 1).to(dtype)


def expect_equal(name, got, want):
    got = got.cpu()
    if got.dtype.is_floating_point:
        ok = torch.allclose(got, want.to(got.dtype), rtol=1e-6, atol=1e-6)
    else:
        ok = torch.equal(got, want.to(got.dtype))
    if not ok:
        raise AssertionError(f"{name}: got {got.tolist()}, expected {want.tolist()}")


def check_collectives(rank, world, dev):
    everyone = torch.stack([rank_values(r) for r in range(world)])
    reductions = {
        ReduceOp.SUM: everyone.sum(0),
        ReduceOp.AVG: everyone.mean(0),
        ReduceOp.MIN: everyone.min(0).values,
        ReduceOp.MAX: everyone.max(0).values,
        ReduceOp.PRODUCT: everyone.prod(0),
    }
    for op, want in reductions.items():
        x = rank_values(rank).to(dev)
        dist.all_reduce(x, op=op)
        expect_equal(f"all_reduce {op}", x, want)
        assert x.device == dev
    # integers, a non-contiguous view, float64
    x = rank_values(rank, dtype=torch.int64).to(dev)
    dist.all_reduce(x)
    expect_equal("all_reduce int64", x, everyone.sum(0))
    x = rank_values(rank, dtype=torch.float64).to(dev)
    dist.all_reduce(x, op=ReduceOp.AVG)
    expect_equal("all_reduce AVG float64", x, everyone.mean(0))
    # PREMUL_SUM (FSDP's gradient scaling): sum of factor * x
    x = rank_values(rank).to(dev)
    dist.all_reduce(x, op=dist._make_nccl_premul_sum(0.5))
    expect_equal("all_reduce PREMUL_SUM", x, everyone.sum(0) * 0.5)

    # async: Work.wait, and the future yields the hal tensors themselves
    x = rank_values(rank).to(dev)
    work = dist.all_reduce(x, async_op=True)
    fut = work.get_future()
    result = fut.wait()
    assert work.wait(), "all_reduce Work.wait() returned False"
    # wait() may only order the current stream (NCCL's semantics): the Work is completed once that stream is.
    torch.hal.synchronize(dev)
    assert work.is_completed(), "all_reduce Work not completed after its stream synchronized"
    assert result[0].device == dev and result[0].data_ptr() == x.data_ptr(), "future's tensor is not x"
    expect_equal("async all_reduce", x, everyone.sum(0))
    chained = dist.all_reduce(rank_values(rank).to(dev), async_op=True).get_future().then(lambda f: f.value()[0] * 2)
    expect_equal("future.then", chained.wait(), everyone.sum(0) * 2)

    # broadcast from the last rank
    x = rank_values(rank).to(dev)
    dist.broadcast(x, src=world - 1)
    expect_equal("broadcast", x, rank_values(world - 1))

    # reduce to rank 0; the others keep their input
    x = rank_values(rank).to(dev)
    dist.reduce(x, dst=0, op=ReduceOp.SUM)
    expect_equal("reduce", x, everyone.sum(0) if rank == 0 else rank_values(rank))

    # all_gather (list and into one tensor)
    outs = [torch.empty(6, device=dev) for _ in range(world)]
    dist.all_gather(outs, rank_values(rank).to(dev))
    for r in range(world):
        expect_equal(f"all_gather[{r}]", outs[r], rank_values(r))
    out = torch.empty(world * 6, device=dev)
    dist.all_gather_into_tensor(out, rank_values(rank).to(dev))
    expect_equal("all_gather_into_tensor", out, everyone.reshape(-1))

    # reduce_scatter: rank r's input chunk c is rank_values(r * world + c); the output of rank c sums chunk c
    chunks = [rank_values(rank * world + c) for c in range(world)]
    want = sum(rank_values(r * world + rank) for r in range(world))
    out = torch.empty(6, device=dev)
    dist.reduce_scatter_tensor(out, torch.cat(chunks).to(dev))
    expect_equal("reduce_scatter_tensor", out, want)
    out = torch.empty(6, device=dev)
    dist.reduce_scatter_tensor(out, torch.cat(chunks).to(dev), op=ReduceOp.AVG)
    expect_equal("reduce_scatter_tensor AVG", out, want / world)
    out = torch.empty(6, device=dev)
    dist.reduce_scatter(out, [c.to(dev) for c in chunks])
    expect_equal("reduce_scatter", out, want)

    # all_to_all_single, equal splits then uneven ones: rank r sends (r+1)*(d+1) values to rank d
    inp = torch.cat([rank_values(rank * world + d, n=2) for d in range(world)]).to(dev)
    out = torch.empty(2 * world, device=dev)
    dist.all_to_all_single(out, inp)
    expect_equal("all_to_all_single", out, torch.cat([rank_values(s * world + rank, n=2) for s in range(world)]))
    sizes_out = [(s + 1) * (rank + 1) for s in range(world)]
    sizes_in = [(rank + 1) * (d + 1) for d in range(world)]
    inp = torch.cat([torch.full((sizes_in[d],), float(100 * rank + d)) for d in range(world)]).to(dev)
    out = torch.empty(sum(sizes_out), device=dev)
    dist.all_to_all_single(out, inp, output_split_sizes=sizes_out, input_split_sizes=sizes_in)
    want = torch.cat([torch.full((sizes_out[s],), float(100 * s + rank)) for s in range(world)])
    expect_equal("all_to_all_single uneven", out, want)
    outs = [torch.empty(3, device=dev) for _ in range(world)]
    dist.all_to_all(outs, [rank_values(rank * world + d, n=3).to(dev) for d in range(world)])
    for s in range(world):
        expect_equal(f"all_to_all[{s}]", outs[s], rank_values(s * world + rank, n=3))

    # send/recv around a ring (a single rank has no peer: a blocking send to itself never completes)
    if world > 1:
        nxt, prv = (rank + 1) % world, (rank - 1) % world
        got = torch.empty(6, device=dev)
        if rank % 2 == 0:
            dist.send(rank_values(rank).to(dev), nxt)
            dist.recv(got, prv)
        else:
            dist.recv(got, prv)
            dist.send(rank_values(rank).to(dev), nxt)
        expect_equal("send/recv", got, rank_values(prv))
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, rank_values(rank).to(dev), nxt),
                                       dist.P2POp(dist.irecv, got, prv)])
        for req in reqs:
            req.wait()
        expect_equal("batch_isend_irecv", got, rank_values(prv))

    dist.barrier()
    # CPU tensors of the same group (gloo), whatever the backend argument was
    c = rank_values(rank)
    dist.all_reduce(c)
    expect_equal("all_reduce of a CPU tensor", c, everyone.sum(0))


def check_ddp(rank, world, dev):
    """DDP on hal matches one process training on the whole batch (the CPU, same seed and data)."""
    torch.manual_seed(0)
    reference = mlp()
    model = torch.nn.parallel.DistributedDataParallel(_copy_of(reference).to(dev))
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(1)
    per_rank = 8
    for step in range(3):
        x = torch.randn(world * per_rank, 784, generator=g)
        y = torch.randint(0, 10, (world * per_rank,), generator=g)
        opt_ref.zero_grad()
        F.cross_entropy(reference(x), y).backward()
        opt_ref.step()
        shard = slice(rank * per_rank, (rank + 1) * per_rank)
        opt.zero_grad()
        F.cross_entropy(model(x[shard].to(dev)), y[shard].to(dev)).backward()
        opt.step()
    for (name, p_ref), p in zip(reference.named_parameters(), model.module.parameters()):
        assert p.device == dev
        if not torch.allclose(p.detach().cpu(), p_ref.detach(), rtol=1e-4, atol=1e-5):
            diff = (p.detach().cpu() - p_ref.detach()).abs().max().item()
            raise AssertionError(f"DDP parameter {name} differs from single-process training by {diff}")


def check_ddp_transformer(rank, world, dev):
    """DDP of the transformer on hal matches one process training on the whole batch."""
    torch.manual_seed(0)
    reference = TinyTransformer(vocab=128, dim=64, heads=2, hidden=128)
    model = torch.nn.parallel.DistributedDataParallel(_copy_of(reference).to(dev))
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    per_rank = 2
    for step in range(3):
        tokens, targets = transformer_batch(batch=world * per_rank, seq=16, vocab=128, seed=step)
        opt_ref.zero_grad()
        F.cross_entropy(reference(tokens).reshape(-1, 128), targets.reshape(-1)).backward()
        opt_ref.step()
        shard = slice(rank * per_rank, (rank + 1) * per_rank)
        opt.zero_grad()
        F.cross_entropy(model(tokens[shard].to(dev)).reshape(-1, 128), targets[shard].reshape(-1).to(dev)).backward()
        opt.step()
    for (name, p_ref), p in zip(reference.named_parameters(), model.module.parameters()):
        if not torch.allclose(p.detach().cpu(), p_ref.detach(), rtol=1e-3, atol=1e-4):
            diff = (p.detach().cpu() - p_ref.detach()).abs().max().item()
            raise AssertionError(f"DDP transformer parameter {name} differs from single-process training by {diff}")


def _copy_of(module):
    import copy

    return copy.deepcopy(module)


def check_fsdp(rank, world, dev):
    """FSDP2 (fully_shard) of a small transformer on hal matches one process training on the whole batch."""
    from torch.distributed.device_mesh import init_device_mesh

    try:
        from torch.distributed.fsdp import fully_shard
    except ImportError:
        from torch.distributed._composable.fsdp import fully_shard
    torch.manual_seed(0)
    reference = TinyTransformer(vocab=64, dim=32, heads=2, hidden=64)
    model = _copy_of(reference).to(dev)
    mesh = init_device_mesh("hal", (world,))
    for block in (model.attn, model.ff):
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)
    # SGD: the update is linear in the gradient, so rounding differences stay rounding-sized (Adam's
    # normalization turns a near-zero gradient's rounding into a full-size step)
    opt_ref = torch.optim.SGD(reference.parameters(), lr=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    per_rank = 2
    for step in range(2):
        tokens, targets = transformer_batch(batch=world * per_rank, seq=8, vocab=64, seed=step)
        opt_ref.zero_grad()
        logits = reference(tokens)
        F.cross_entropy(logits.reshape(-1, 64), targets.reshape(-1)).backward()
        opt_ref.step()
        shard = slice(rank * per_rank, (rank + 1) * per_rank)
        opt.zero_grad()
        logits = model(tokens[shard].to(dev))
        F.cross_entropy(logits.reshape(-1, 64), targets[shard].reshape(-1).to(dev)).backward()
        opt.step()
    for (name, p_ref), p in zip(reference.named_parameters(), model.parameters()):
        full = p.full_tensor() if hasattr(p, "full_tensor") else p
        assert full.device == dev, (name, full.device)
        if not torch.allclose(full.detach().cpu(), p_ref.detach(), rtol=1e-4, atol=1e-5):
            diff = (full.detach().cpu() - p_ref.detach()).abs().max().item()
            raise AssertionError(f"FSDP2 parameter {name} differs from single-process training by {diff}")


def check_dtensor(rank, world, dev):
    """DTensor on hal: sharding, redistribution and a reduction across ranks."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    mesh = init_device_mesh("hal", (world,))
    full = torch.arange(world * 4, dtype=torch.float32).reshape(world * 2, 2)
    d = distribute_tensor(full.to(dev), mesh, [Shard(0)])
    assert d.to_local().device == dev and d.to_local().shape == (2, 2)
    expect_equal("DTensor local shard", d.to_local(), full[2 * rank:2 * rank + 2])
    expect_equal("DTensor redistribute to Replicate", d.redistribute(mesh, [Replicate()]).to_local(), full)
    expect_equal("DTensor sum", (d * 2).sum().full_tensor(), (full * 2).sum())
    expect_equal("DTensor matmul", (d.T @ d).full_tensor(), full.T @ full)


def check_dead_peer(rank, world, dev):
    """Rank world-1 dies after the first collective; the others must get an error, not hang, and never read a
    value the collective did not write."""
    x = torch.ones(4, device=dev)
    dist.all_reduce(x)
    if rank == world - 1:
        os._exit(17)  # no goodbye: as a crashed process
    start = time.monotonic()
    try:
        for _ in range(3):
            dist.all_reduce(x)
        # Where wait() only orders the stream (NCCL's default), reading x waits for the device: the watchdog
        # must end this process with the error first.
        value = x.cpu()
    except Exception as error:  # noqa: BLE001  (whatever PyTorch raises, it must say what happened)
        print(f"RANK {rank} ERROR after {time.monotonic() - start:.1f}s: {type(error).__name__}: {error}")
        sys.stdout.flush()
        os._exit(3)
    raise AssertionError(f"all_reduce with a dead peer returned, and x reads {value}")


def check_silent_peer(rank, world, dev):
    """Rank world-1 stays alive but never joins the second collective: the others time out."""
    x = torch.ones(4, device=dev)
    dist.all_reduce(x)
    if rank == world - 1:
        time.sleep(float(os.environ.get("HAL_TEST_TIMEOUT_S", "60")) + 5)  # outlives the others' timeout
        os._exit(0)
    start = time.monotonic()
    try:
        dist.all_reduce(x)
    except Exception as error:  # noqa: BLE001
        print(f"RANK {rank} ERROR after {time.monotonic() - start:.1f}s: {type(error).__name__}: {error}")
        sys.stdout.flush()
        os._exit(3)
    raise AssertionError("all_reduce with a silent peer returned")


CASES = {
    "collectives": [check_collectives],
    "collectives_ddp": [check_collectives, check_ddp],
    "collectives_ddp_transformer": [check_collectives, check_ddp, check_ddp_transformer],
    "fsdp": [check_fsdp, check_dtensor],
    "dead_peer": [check_dead_peer],
    "silent_peer": [check_silent_peer],
}


def main():
    case, rank, world, store_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    backend = os.environ.get("HAL_TEST_BACKEND") or None
    timeout = datetime.timedelta(seconds=float(os.environ.get("HAL_TEST_TIMEOUT_S", "60")))
    dev = torch.device("hal", rank % torch.hal.device_count())
    torch.hal.set_device(dev)
    dist.init_process_group(backend=backend, init_method=f"file://{store_file}", rank=rank, world_size=world,
                            timeout=timeout)
    for check in CASES[case]:
        check(rank, world, dev)
    dist.destroy_process_group()
    print(f"RANK {rank} OK")


if __name__ == "__main__":
    main()
