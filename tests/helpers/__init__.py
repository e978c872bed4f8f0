"""What more than one test module uses: test modules import helpers
from here (or from a fixture module), never from another test module."""
