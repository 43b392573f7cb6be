"""videoreview: review video with local models."""

__version__ = "0.1.0"
