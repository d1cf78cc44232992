"""Thin routes, one module per resource. They validate, call the referee, and reply."""
