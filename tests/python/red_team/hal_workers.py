"""Targets for multiprocessing children of the red-team cases: a spawn child imports its target by module
name, so the target cannot live in the case's code itself."""
import torch


def double_on_hal(values, results):
    """Puts (device type, doubled values) of a computation on hal, or the error it raised."""
    try:
        import torch_hal  # noqa: F401  (a spawn child starts without it)

        x = torch.tensor(values, device="hal")
        results.put(("ok", (x * 2).cpu().tolist(), torch.hal.device_count()))
    except Exception as e:
        results.put(("error", f"{type(e).__name__}: {e}"))


def double_on_hal_returning(values):
    """For Pool.map: the doubled values, computed on hal (raises what hal raises)."""
    import torch_hal  # noqa: F401

    return (torch.tensor(values, device="hal") * 2).cpu().tolist()
