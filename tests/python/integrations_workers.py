"""Training runs for test_integrations.py, one per process (accelerate's state is a per-process singleton, and the
opt-in changes library defaults): ``python integrations_workers.py CASE DEVICE PRECISION``.

CASE is lightning, pytorch_lightning (Trainer), lightning.fabric, lightning_fabric (Fabric), accelerate or
transformers; DEVICE is hal (the run under ``import torch_hal.integrations``) or cpu (the reference: the same library
on the CPU, without the opt-in; for accelerate in one process the plain PyTorch loop it wraps); PRECISION is 32, bf16
or fp16. WORKER_DEVICES=N makes the Trainer's and Fabric's runs DDP over N devices; ``accelerate`` under
``accelerate launch --multi_gpu`` (LOCAL_RANK set) is one of its processes. The ranks of a DDP run each take their
share of every batch. Each rank prints one line ``RESULT {json}``: the losses, the dtype and device of an
activation seen by a forward hook inside autocast, the devices of the parameters while training, and the grad
scaler's device.
"""
import json
import os
import sys
import tempfile

import torch

CASE, DEVICE, PRECISION = sys.argv[1:4]
DTYPE = {"32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[PRECISION]
if DEVICE == "hal":
    import torch_hal.integrations  # noqa: F401  (the opt-in under test)
STEPS = 4
seen = {"act": set(), "params": set()}


def watch(linear: torch.nn.Module, model: torch.nn.Module) -> None:
    def hook(module, inputs, output):
        seen["act"].add(f"{output.dtype}@{output.device.type}")
        seen["params"].update(p.device.type for p in model.parameters())
    linear.register_forward_hook(hook)


def report(losses, scaler=None, **extra):
    result = {"losses": [float(x) for x in losses], "act": sorted(seen["act"]), "params": sorted(seen["params"]),
              "scaler": getattr(scaler, "_device", None) if scaler is not None else None, **extra}
    # One write of the whole line: ranks share stdout, and print() writes the text and its newline apart, which
    # interleaves two ranks' lines when Python runs unbuffered (PYTHONUNBUFFERED=1).
    sys.stdout.write("RESULT " + json.dumps(result) + "\n")
    sys.stdout.flush()


def mlp_data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(4 * STEPS, 8, generator=g), torch.randn(4 * STEPS, 1, generator=g)


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))


def run_lightning(package: str):
    pl = __import__("lightning.pytorch" if package == "lightning" else package, fromlist=["Trainer"])

    class Module(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = mlp()
            self.losses = []
            watch(self.net[0], self)

        def training_step(self, batch, index):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x).float(), y)
            self.losses.append(loss.detach())
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    x, y = mlp_data()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)
    precision = {"32": "32-true", "bf16": "bf16-mixed", "fp16": "16-mixed"}[PRECISION]
    kwargs = dict(max_steps=STEPS, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                  enable_model_summary=False)
    devices = int(os.environ.get("WORKER_DEVICES", "1"))
    if devices > 1:
        kwargs["strategy"] = "ddp"
    if DEVICE == "hal":
        trainer = pl.Trainer(accelerator="hal", devices=devices, precision=precision, **kwargs)
    elif PRECISION == "fp16":
        # Lightning turns 16-mixed into bf16 on the CPU; its own plugin with a CPU scaler is the same algorithm.
        plugin = pl.plugins.precision.MixedPrecision("16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu"))
        trainer = pl.Trainer(accelerator="cpu", devices=devices, plugins=[plugin], **kwargs)
    else:
        trainer = pl.Trainer(accelerator="cpu", devices=devices, precision=precision, **kwargs)
    module = Module()
    trainer.fit(module, loader)
    strategy = trainer.strategy
    report(module.losses, getattr(trainer.precision_plugin, "scaler", None), rank=trainer.global_rank,
           root_device=str(strategy.root_device), strategy=type(strategy).__name__,
           backend=getattr(strategy, "process_group_backend", None),
           weights=[p.detach().double().sum().item() for p in module.parameters()])


def run_accelerate():
    model, (x, y) = mlp(), mlp_data()
    watch(model[0], model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    mixed = {"32": "no", "bf16": "bf16", "fp16": "fp16"}[PRECISION]
    launched = "LOCAL_RANK" in os.environ  # under `accelerate launch --multi_gpu`: one of its processes
    if DEVICE == "hal" or launched:
        from accelerate import Accelerator
        # The CPU reference of a launched run is accelerate's own on the CPU: its processes over gloo.
        accelerator = Accelerator(mixed_precision=mixed, cpu=DEVICE == "cpu")
        model, optimizer = accelerator.prepare(model, optimizer)
        # Each rank takes its share of every batch of 4; DDP averages the gradients over the ranks.
        n, rank = accelerator.num_processes, accelerator.process_index
        for i in range(STEPS):
            rows = slice(4 * i + rank * 4 // n, 4 * i + (rank + 1) * 4 // n)
            xb, yb = x[rows].to(accelerator.device), y[rows].to(accelerator.device)
            with accelerator.autocast():
                loss = torch.nn.functional.mse_loss(model(xb).float(), yb)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            losses.append(loss.detach())
        distributed = torch.distributed.is_initialized()
        return report(losses, accelerator.scaler, device=str(accelerator.device), rank=rank, world_size=n,
                      distributed_type=str(accelerator.distributed_type).split(".")[-1],
                      backend=torch.distributed.get_backend() if distributed else None,
                      model=type(model).__name__,
                      weights=[p.detach().double().sum().item() for p in model.parameters()])
    # the loop accelerate runs, on the CPU: autocast, and a GradScaler for fp16
    scaler = torch.amp.GradScaler("cpu") if PRECISION == "fp16" else None
    for i in range(STEPS):
        with torch.autocast("cpu", dtype=DTYPE, enabled=PRECISION != "32"):
            loss = torch.nn.functional.mse_loss(model(x[4 * i:4 * i + 4]).float(), y[4 * i:4 * i + 4])
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.detach())
    report(losses, scaler, device="cpu")


def run_fabric(package: str):
    fabric_module = __import__(package, fromlist=["Fabric"])
    devices = int(os.environ.get("WORKER_DEVICES", "1"))
    precision = {"32": "32-true", "bf16": "bf16-mixed", "fp16": "16-mixed"}[PRECISION]
    kwargs = dict(devices=devices, strategy="ddp" if devices > 1 else "auto")
    if DEVICE == "hal":
        fabric = fabric_module.Fabric(accelerator="hal", precision=precision, **kwargs)
    elif PRECISION == "fp16":
        # Fabric turns 16-mixed into bf16 on the CPU; its own plugin with a CPU scaler is the same algorithm.
        plugin = fabric_module.plugins.precision.MixedPrecision("16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu"))
        fabric = fabric_module.Fabric(accelerator="cpu", plugins=[plugin], **kwargs)
    else:
        fabric = fabric_module.Fabric(accelerator="cpu", precision=precision, **kwargs)
    fabric.launch()  # strategy="ddp": starts the other ranks, each running this script
    model, (x, y) = mlp(), mlp_data()
    watch(model[0], model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer = fabric.setup(model, optimizer)  # its forward runs under the precision's autocast
    n, rank = fabric.world_size, fabric.global_rank
    losses = []
    for i in range(STEPS):
        rows = slice(4 * i + rank * 4 // n, 4 * i + (rank + 1) * 4 // n)
        xb, yb = x[rows].to(fabric.device), y[rows].to(fabric.device)
        loss = torch.nn.functional.mse_loss(model(xb).float(), yb)
        fabric.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.detach())
    strategy = fabric.strategy
    report(losses, getattr(fabric._precision, "scaler", None), rank=rank, world_size=n,
           root_device=str(strategy.root_device), device=str(fabric.device), strategy=type(strategy).__name__,
           precision_device=getattr(fabric._precision, "device", None),
           backend=torch.distributed.get_backend() if torch.distributed.is_initialized() else None,
           weights=[p.detach().double().sum().item() for p in model.parameters()])


def run_transformers():
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    torch.manual_seed(0)
    # No dropout: its masks come from each device's generator (Philox on GPUs, as torch.cuda's), so with dropout the
    # run on a GPU and the run on the CPU would train on different masks and no tolerance could compare them.
    model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64, n_positions=16,
                                       resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))
    watch(model.transformer.h[0].mlp.c_fc, model)
    g = torch.Generator().manual_seed(1)
    data = [{"input_ids": ids, "labels": ids} for ids in torch.randint(0, 64, (4 * STEPS, 16), generator=g)]
    # fp16 on the CPU: accelerate runs no autocast there (it enables fp16 AMP only off the CPU), so the CPU
    # reference of an fp16 run is the fp32 run, compared with fp16's tolerance.
    cpu_fp16 = DEVICE == "cpu" and PRECISION == "fp16"
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=STEPS,
                             logging_steps=1, report_to=[], save_strategy="no", learning_rate=1e-2,
                             lr_scheduler_type="constant", dataloader_pin_memory=False, seed=0,
                             use_cpu=DEVICE == "cpu", bf16=PRECISION == "bf16",
                             fp16=PRECISION == "fp16" and not cpu_fp16)
    trainer = Trainer(model=model, args=args, train_dataset=data)
    trainer.train()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    report(losses, trainer.accelerator.scaler, device=str(args.device))


if __name__ == "__main__":
    if CASE in ("lightning", "pytorch_lightning"):
        run_lightning(CASE)
    elif CASE in ("lightning.fabric", "lightning_fabric"):
        run_fabric(CASE)
    else:
        {"accelerate": run_accelerate, "transformers": run_transformers}[CASE]()
