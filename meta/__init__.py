"""Placeholder: implemented by a later issue."""
