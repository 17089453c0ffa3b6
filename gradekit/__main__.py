"""`python -m gradekit`: the command line (see gradekit.cli)."""

from gradekit.cli import main
import sys
sys.exit(main())
