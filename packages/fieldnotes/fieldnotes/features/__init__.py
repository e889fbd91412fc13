"""Page features: the executed blocks, downloads, the API index page, the notebook pages."""
