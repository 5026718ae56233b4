// The buzzer box firmware for the Arduino IDE (Uno or Nano, ATmega328P at 16 MHz).
//
// This sketch is only a wrapper: the firmware is the C and assembly in src/ (a link to
// firmware/src), which defines its own main() and uses none of the Arduino core. Open this folder
// in the Arduino IDE, pick "Arduino Uno" (or "Arduino Nano", with "ATmega328P (Old Bootloader)" for
// older Nanos) and upload. The serial protocol is in firmware/PROTOCOL.md; building with make
// instead is described in firmware/README.md.
