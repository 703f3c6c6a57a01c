"""ResNet-18 and ResNet-50 from torchvision (random init: no weights downloaded). torchvision is imported
only when a model is built, so the zoo loads without it."""
from typing import Callable, List, Tuple


def builders(images) -> List[Tuple[str, Callable]]:
    def resnet(name):
        def build():
            import torchvision
            return getattr(torchvision.models, name)(weights=None, num_classes=images.classes)
        return build
    return [("resnet18", resnet("resnet18")), ("resnet50", resnet("resnet50"))]
