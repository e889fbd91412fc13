words = ["leaf", "graph", "leaf"]
