/* Lamps and beeper, as the companion asks. */
#ifndef OUTPUTS_H
#define OUTPUTS_H

#include <stdint.h>

void outputs_init(void);
void outputs_lamps(uint8_t on, uint8_t blink);
/* 0 stops; returns 0 when the frequency is out of range. */
uint8_t outputs_beep(uint16_t hz, uint16_t ms, uint32_t now);
void outputs_update(uint32_t now);
/* 1 while outputs_update has something to do (a beep to end, lamps to blink or to write). */
extern uint8_t outputs_busy;

#endif
