"""ResNet-18, ResNet-50 and MobileNetV3-Large from torchvision (random init: no weights downloaded). torchvision is
imported only when a model is built, so the zoo loads without it. MobileNetV3 leans on what ResNets do not:
depthwise convolutions, hardswish and hardsigmoid (squeeze-and-excitation), dropout before its classifier."""
from typing import Callable, List, Tuple


def builders(images) -> List[Tuple[str, Callable]]:
    def torchvision_model(name):
        def build():
            import torchvision
            return getattr(torchvision.models, name)(weights=None, num_classes=images.classes)
        return build
    return [(name, torchvision_model(name)) for name in ("resnet18", "resnet50", "mobilenet_v3_large")]
