"""``python -m gradekit.i18n compile``: what ``make`` runs to compile the catalogs."""

import sys

from gradekit.i18n.cli import main

sys.exit(main())
