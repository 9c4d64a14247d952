import sys

from interpretopt.cli import main

sys.exit(main())
