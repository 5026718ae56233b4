"""`companion install-service`: run the companion as a systemd service on the Pi.

The unit is rendered as text by pure functions (`unit`); a person's request is checked against the
machine before anything is written (`request`), so a mistake is reported by the installer and not by
a service that refuses to start; `commands` is the thin edge that writes the unit and runs
`systemctl`, through a `machine.Machine` that tests replace.
"""
