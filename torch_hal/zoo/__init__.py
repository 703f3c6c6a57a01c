"""``python -m torch_hal zoo``: models of several families trained a few steps on a hal device and on the CPU (and
on cuda where present) from one seed, compared loss by loss (torch_hal/zoo/runner.py says how).

Families (a module each, imported only when asked for, so the zoo loads without their packages):
  builtin       models defined here with torch alone (builtin.py)
  torchvision   every classification model of torchvision.models, and a detection, a segmentation, a video and an
                optical-flow model (torchvision_family.py)
  transformers  decoder LMs (a mixture of experts and a state-space model among them), encoders, encoder-decoders,
                speech, vision and vision-language models built from their config classes at tiny sizes
                (transformers_family.py)
  timm          a selection of timm's architectures (timm_family.py)
Everything here except runner.py, op_counts.py, table.py and command.py imports torch alone, so that a cuda side
loads it without registering hal (hal_free.py).
"""
import importlib
from typing import Dict, List

FAMILIES: Dict[str, str] = {
    "builtin": "builtin",
    "torchvision": "torchvision_family",
    "transformers": "transformers_family",
    "timm": "timm_family",
}


class FamilyUnavailable(Exception):
    """A family whose package is not importable here; the message says why and what to install."""


def family_models(family: str) -> list:
    """The ZooModels of a family; FamilyUnavailable where its package is missing or fails to import."""
    module = importlib.import_module(f"{__name__}.{FAMILIES[family]}")
    return module.models()


def import_package(package: str, family: str):
    """The family's package, or FamilyUnavailable saying why it does not import (not only ImportError: a
    torchvision built for another torch fails registering its operators)."""
    try:
        return importlib.import_module(package)
    except Exception as error:  # noqa: BLE001  (any failure to import is the reason the family is skipped)
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise FamilyUnavailable(f"the {family} family needs the {package} package, which does not import here "
                                f"({type(error).__name__}: {detail}); install it to run this family") from None


def select(families: List[str], names: List[str]) -> tuple:
    """(models, {family: why it was skipped}) for the families asked for, restricted to `names` when given."""
    chosen, skipped = [], {}
    for family in families:
        try:
            found = family_models(family)
        except FamilyUnavailable as why:
            skipped[family] = str(why)
            continue
        chosen.extend(m for m in found if not names or m.name in names)
    return chosen, skipped
