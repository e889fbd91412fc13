"""fieldnotes: an MkDocs plugin that runs each example of a site in isolation and checks it against its
recorded output (`fieldnotes.plugin`); its torch features are `fieldnotes.torch`."""

DISTRIBUTION = "fieldnotes"
"""This package's own distribution: its code is in the store's keys by content, so the cache leaves its
name and version out."""
