"""Where a model's training step spends its time on one device: torch.profiler over a few steps of a model of
the model benchmark (model_zoo), the top operators by device time and by host time.

    python benchmarks/profile_model.py --model resnet18 --device hal:0 [--steps 5] [--rows 20] [--quick]
                                       [--compile [--scale 8]] [--cupti]

Run it once with --device hal:N and once with --device cuda:N (separate processes, as the model benchmark
keeps them) and read the two tables side by side. On hal, device time comes from PyTorch's PrivateUse1
activity profiler (torch_hal's Kineto hooks); a device without them shows CPU time only. --cupti profiles a hal
device that is an NVIDIA GPU with CUPTI instead, as torch.cuda's side is: every kernel on the GPU by name,
among them those no hal op launched (Inductor's Triton kernels under --compile).

Both runs use the same autograd threading: --autograd-threading calling (the default) runs backward on the calling
thread, as `import torch_hal` sets it, in the cuda process too; worker gives PyTorch's default (autograd's device
thread) to either side.

--compile profiles the step compile_benchmark.py times, through its worker's code: the compiled model's forward, the
loss and the backward (no optimizer), for its models too (mlp, transformer_block, norm_net, conv_net at --scale).
"""
import argparse
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sides  # noqa: E402
from compile_worker import model_and_calls  # noqa: E402
from model_zoo import case  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--steps", type=int, default=5, help="profiled steps, after 3 warm-up steps")
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="the model benchmark's tiny sizes")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model (Inductor)")
    parser.add_argument("--scale", type=int, default=8, help="with --compile: compile_benchmark.py's --scale")
    parser.add_argument("--cupti", action="store_true", help="on an NVIDIA hal device: CUPTI's device activity")
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="calling",
                        help="calling (default, torch_hal's setting, applied to any device), worker (PyTorch's "
                        "default), keep")
    args = parser.parse_args()

    if args.device.startswith("hal"):
        import torch_hal  # noqa: F401  (registers the device name where autoloading is off)
    threading = sides.set_autograd_threading(args.autograd_threading)
    device = torch.device(args.device)
    module = getattr(torch, device.type)
    if args.compile:
        model, loss, _ = model_and_calls(args.model, 1 if args.quick else args.scale, device)
        compiled = torch.compile(model)

        def step():
            for p in model.parameters():
                p.grad = None
            loss(compiled).backward()
    else:
        model_case = case(args.model, args.quick)
        torch.manual_seed(0)
        model = model_case.build().to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        batch = {k: v.to(device) for k, v in model_case.batch(torch.Generator().manual_seed(0)).items()}

        def step():
            optimizer.zero_grad(set_to_none=True)
            model_case.loss(model, batch).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()

    for _ in range(3):
        step()
    module.synchronize()
    cupti = device.type == "cuda" or args.cupti
    device_activity = ProfilerActivity.CUDA if cupti else ProfilerActivity.PrivateUse1
    with profile(activities=[ProfilerActivity.CPU, device_activity]) as prof:
        for _ in range(args.steps):
            step()
        module.synchronize()
    table = prof.key_averages()
    # A launch-bound step (small kernels) is decided by the host's time per operator, a compute-bound one by
    # the device's: both tables, so the comparison with another device shows which side differs.
    for sort, what in (("self_device_time_total", "self device time"), ("self_cpu_time_total", "self CPU time")):
        mode = "compiled, " if args.compile else ""
        print(f"{args.model} on {device} ({mode}{args.steps} steps, {sides.describe_threading(threading)}), "
              f"operators by {what}:")
        print(table.table(sort_by=sort, row_limit=args.rows, max_name_column_width=60))


if __name__ == "__main__":
    main()
