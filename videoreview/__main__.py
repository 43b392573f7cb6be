import sys

from .cli import main

if __name__ == "__main__":  # not when a spawned analysis process imports this module
    sys.exit(main())
