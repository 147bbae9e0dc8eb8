"""Set-up for every pytest run of the repository, the package's doctests included: matplotlib draws
with its non-interactive backend, so no test or example needs a display."""

import matplotlib

matplotlib.use("Agg")
