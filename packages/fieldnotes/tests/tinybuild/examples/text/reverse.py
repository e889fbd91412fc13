words = "fieldnotes checks every output".split()
print(" ".join(reversed(words)))
