"""``python -m gradekit.i18n compile``: what ``make`` runs to compile the catalogs."""

import sys

from .cli import main

sys.exit(main())
