"""The zoo's timm family, where timm is importable: a selection of timm's architectures (convolutional,
mobile, vision transformer, MLP-mixer, metaformer), random init (pretrained=False), 10 classes, batch 2, at 64x64
(the transformers and the mixer are built for that size: img_size=64). Names the installed timm does not have are
left out. Imports torch alone until the family is listed (hal_free.py says why).
"""
from typing import List

from . import import_package
from .case import ZooModel, classification_loss, image_batch

BATCH, SIDE, CLASSES = 2, 64, 10
MODELS = {  # name: create_model's arguments
    "resnet18": {}, "resnet50d": {}, "efficientnet_b0": {}, "mobilenetv3_small_100": {}, "convnext_atto": {},
    "regnetx_002": {}, "ghostnet_100": {}, "rexnet_100": {}, "densenet121": {}, "poolformer_s12": {},
    "vit_tiny_patch16_224": {"img_size": SIDE}, "deit_tiny_patch16_224": {"img_size": SIDE},
    "mixer_s16_224": {"img_size": SIDE},
}


def _model(name: str, arguments: dict) -> ZooModel:
    def build():
        return import_package("timm", "timm").create_model(name, pretrained=False, num_classes=CLASSES, **arguments)
    return ZooModel(name, "timm", build, image_batch(BATCH, SIDE, CLASSES), classification_loss,
                    f"{SIDE}x{SIDE} images, batch {BATCH}, {CLASSES} classes")


def models() -> List[ZooModel]:
    timm = import_package("timm", "timm")
    return [_model(name, arguments) for name, arguments in MODELS.items() if timm.is_model(name)]
