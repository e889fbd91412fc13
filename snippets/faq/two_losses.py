import torch

a = torch.tensor(2.0, requires_grad=True)
# both losses use this; exp saves its result
shared = a.exp()

loss1 = shared * 3
loss2 = shared ** 2
# frees what the shared part saved
loss1.backward()
# goes through the shared part again
loss2.backward()
