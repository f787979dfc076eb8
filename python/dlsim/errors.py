"""The two exceptions of the package."""


class DlsimError(Exception):
    """The dlsim binary failed (or could not be started).

    ``returncode`` is its exit status (2 = bad input, 1 = anything else; None when the
    binary was not found) and ``message`` its one-line stderr message, e.g.
    ``dlsim: error: workers: must be >= 1, got 0``.
    """

    def __init__(self, message, returncode=None):
        super().__init__(message)
        self.message = message
        self.returncode = returncode


class OutputError(Exception):
    """A run or sweep folder is missing or cannot be read."""
