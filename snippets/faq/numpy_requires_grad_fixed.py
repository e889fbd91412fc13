import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
pred = model(torch.randn(4, 3))

# out of the graph, sharing pred's memory
array = pred.detach().numpy()
print(type(array).__name__, array.shape)

# or compute it outside the graph to begin with
with torch.no_grad():
    pred = model(torch.randn(4, 3))
print("under no_grad:", pred.numpy().shape)
