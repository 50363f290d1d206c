"""The pages family: ``/``, ``/docs``, ``/playground``, ``/openapi.json`` and their files."""
