"""Press sources (GPIO, serial microcontroller, phones, simulated) behind one seam."""
