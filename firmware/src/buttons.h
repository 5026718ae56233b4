/* From raw snapshots to confirmed press and release events. */
#ifndef BUTTONS_H
#define BUTTONS_H

#include <stdint.h>

typedef struct {
    uint16_t seq;
    uint8_t button; /* 1-8 */
    uint8_t edge;   /* 1 press, 0 release */
    uint32_t ticks; /* when the first edge happened */
} button_event;

void buttons_init(uint8_t state);
/* Turn the snapshots the sampler stored into edge times, then confirm the edges whose time has
 * come. Returns the board time it worked with. */
uint32_t buttons_update(void);
void buttons_set_debounce(uint32_t confirm_ticks, uint32_t mask_ticks);

/* The queue of confirmed events waiting for the serial line. */
uint8_t buttons_peek(button_event *event);
uint8_t buttons_queued(void);
void buttons_pop(void);
uint16_t buttons_next_seq(void);
uint16_t buttons_dropped(void);
uint16_t buttons_noise(void);
uint8_t buttons_held(void);

/* The time of the edge a snapshot shows (exposed for the host-side decoder tests). */
uint32_t edge_time(uint8_t kind, uint32_t timer);

#endif
