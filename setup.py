"""Which packages the wheel holds: the one thing pyproject.toml cannot say, as it either finds packages
or lists them. The companion's own packages are found, so a new one needs no edit here. The front end
lives in web/ at the top of the repository and is installed as the package companion.frontend, so that
importlib.resources finds it the same way from a checkout's editable install and from a wheel. Not as
companion.web: a checkout from before web/ moved out may keep a companion/web/ folder of bytecode
caches (git leaves it behind), and Python would import that empty folder in its place."""

from setuptools import find_namespace_packages, setup

FRONTEND = "companion.frontend"

setup(
    packages=[*find_namespace_packages(include=["companion", "companion.*"]),
              FRONTEND, *(f"{FRONTEND}.{name}" for name in find_namespace_packages("web"))],
    package_dir={FRONTEND: "web"},
)
