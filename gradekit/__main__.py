"""`python -m gradekit`: the command line (see gradekit.cli.main)."""

import sys

from gradekit.cli.main import main

sys.exit(main())
