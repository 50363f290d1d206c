"""The render family: the image route ``GET {render_path}/{template}.svg`` and ``.png``."""
