"""The front end: page templates, static scripts and styles, and the translations. Installed as the
package `companion.frontend` (setup.py maps this folder there), so the app and the translations find it
through importlib.resources the same way from a checkout and from a wheel."""
