import torch

a = torch.tensor(2.0, requires_grad=True)
shared = a.exp()           # both losses use this; exp saves its result

loss1 = shared * 3
loss2 = shared ** 2
loss1.backward()           # frees what the shared part saved
loss2.backward()           # goes through the shared part again
