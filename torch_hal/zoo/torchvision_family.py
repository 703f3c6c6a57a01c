"""The zoo's torchvision family: every classification model of torchvision.models.list_models(module=
torchvision.models), and one detection (SSDlite), one segmentation (LR-ASPP), one video (R3D-18) and one optical-flow
model (RAFT small). Random init (weights=None, and weights_backbone=None where a backbone would be downloaded), 10
classes, batch 2. Inputs are 64x64 where the model allows it; per model otherwise (_classifier_arguments, FLOW_SIDE).
Imports torch alone until the family is listed (hal_free.py says why).
"""
from typing import List

import torch
import torch.nn.functional as F

from . import import_package
from .case import ZooModel, classification_loss, image_batch

BATCH, SIDE, CLASSES = 2, 64, 10


def _classifier_arguments(name: str):
    """(arguments of the builder, input side) of a classification model."""
    if name.startswith("vit_"):  # a fixed image size, a multiple of the patch: 4 x 4 patches
        patch = int(name.split("_")[2])
        return {"image_size": 4 * patch}, 4 * patch
    if name == "maxvit_t":  # its partitions of 7 x 7 need 224 (7 x 32)
        return {}, 224
    if name in ("inception_v3", "googlenet"):  # no auxiliary classifiers (a tuple of outputs in training mode)
        return {"aux_logits": False, "init_weights": True}, 96 if name == "inception_v3" else SIDE  # inception: >= 75
    return {}, SIDE


def _classifier(name: str) -> ZooModel:
    arguments, side = _classifier_arguments(name)

    def build():
        return import_package("torchvision", "torchvision").models.get_model(name, weights=None, num_classes=CLASSES,
                                                                               **arguments)
    return ZooModel(name, "torchvision", build, image_batch(BATCH, side, CLASSES), classification_loss,
                    f"{side}x{side} images, batch {BATCH}, {CLASSES} classes")


def _detection_batch(generator):
    images = [torch.rand(3, SIDE, SIDE, generator=generator) for _ in range(BATCH)]
    targets = []
    for _ in range(BATCH):
        corner = torch.rand(2, 2, generator=generator) * SIDE / 2
        boxes = torch.cat([corner, corner + SIDE / 4 + torch.rand(2, 2, generator=generator) * SIDE / 4], dim=1)
        targets.append({"boxes": boxes, "labels": torch.randint(1, 3, (2,), generator=generator)})
    return {"images": images, "targets": targets}


def _segmentation_batch(generator):
    return {"images": torch.randn(BATCH, 3, SIDE, SIDE, generator=generator),
            "labels": torch.randint(0, 4, (BATCH, SIDE, SIDE), generator=generator)}


FLOW_SIDE = 128  # RAFT's correlation pyramid needs feature maps of 16 x 16 (inputs downsampled by 8)


def _flow_batch(generator):
    return {"first": torch.randn(BATCH, 3, FLOW_SIDE, FLOW_SIDE, generator=generator),
            "second": torch.randn(BATCH, 3, FLOW_SIDE, FLOW_SIDE, generator=generator),
            "flow": torch.randn(BATCH, 2, FLOW_SIDE, FLOW_SIDE, generator=generator)}


def _flow_loss(model, batch):
    predictions = model(batch["first"], batch["second"], num_flow_updates=3)
    return sum((p - batch["flow"]).abs().mean() for p in predictions)


def _others(models) -> List[ZooModel]:
    detection, segmentation, video, flow = (models.detection, models.segmentation, models.video,
                                            models.optical_flow)
    return [
        ZooModel("ssdlite320_mobilenet_v3_large", "torchvision",
                 lambda: detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3),
                 _detection_batch, lambda m, b: sum(m(b["images"], b["targets"]).values()),
                 f"detection, {BATCH} {SIDE}x{SIDE} images (resized to 320), 2 boxes each"),
        ZooModel("lraspp_mobilenet_v3_large", "torchvision",
                 lambda: segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=4),
                 _segmentation_batch, lambda m, b: F.cross_entropy(m(b["images"])["out"], b["labels"]),
                 f"segmentation, {SIDE}x{SIDE} images, 4 classes per pixel"),
        ZooModel("r3d_18", "torchvision", lambda: video.r3d_18(weights=None, num_classes=CLASSES),
                 lambda g: {"images": torch.randn(BATCH, 3, 4, 32, 32, generator=g),
                            "labels": torch.randint(0, CLASSES, (BATCH,), generator=g)},
                 classification_loss, f"video, {BATCH} clips of 4 frames 32x32"),
        ZooModel("raft_small", "torchvision", lambda: flow.raft_small(weights=None), _flow_batch, _flow_loss,
                 f"optical flow, {BATCH} pairs {FLOW_SIDE}x{FLOW_SIDE}, 3 flow updates"),
    ]


def models() -> List[ZooModel]:
    torchvision = import_package("torchvision", "torchvision")
    names = torchvision.models.list_models(module=torchvision.models)
    return [_classifier(name) for name in names] + _others(torchvision.models)
