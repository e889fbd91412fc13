from collections import Counter

text = "the cat and the hat and the bat"
for word, times in Counter(text.split()).most_common(2):
    print(word, times)
