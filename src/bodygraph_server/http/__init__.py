"""The HTTP face of the service: the gate middleware, endpoints (v1, v2, visual, extensions),
request validation, the envelope, the error table, OpenAPI and the pages."""
