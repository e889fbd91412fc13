from collections import Counter

# `words` comes from setup.py, included before this file in the same block.
print(Counter(words).most_common(1))  # noqa: F821
