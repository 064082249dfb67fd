"""replace_conv2d on torchvision's ResNet-18 (random weights, CPU or CUDA): what was swapped, and the
logits against the same model in float64. Usage: python3 resnet_surgery.py [cpu|cuda] [transform]"""
import sys

import torch
import torchvision

import nova_torch

device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
transform = sys.argv[2] if len(sys.argv) > 2 else "auto"
torch.backends.cudnn.allow_tf32 = False  # compare float32 with float32
model = torchvision.models.resnet18().eval().to(device)
x = torch.randn(2, 3, 64, 64, device=device)
with torch.no_grad():
    reference = model.double()(x.double())
    model.float()
    report = nova_torch.replace_conv2d(model, transform=transform)
    logits = model(x)
print(f"{len(report.swapped)} layers swapped; left: "
      + ", ".join(sorted({reason.split(':')[0] for _, reason in report.left})))
print(nova_torch.explain(x.new_empty(2, 64, 16, 16), model.layer1[0].conv1.weight, transform=transform))
error = ((logits.double() - reference).norm() / reference.norm()).item()
print(f"logits relative error against float64: {error:.1e}")
sys.exit(0 if error < 1e-4 and torch.isfinite(logits).all() else 1)
