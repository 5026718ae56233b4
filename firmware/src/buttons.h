/* From raw looks to confirmed press and release events. */
#ifndef BUTTONS_H
#define BUTTONS_H

#include <stdint.h>

typedef struct {
    uint16_t seq;
    uint8_t button; /* 1-8 */
    uint8_t edge;   /* 1 press, 0 release */
    uint32_t ticks; /* when the first edge happened */
} button_event;

#include "sampler.h"

void buttons_init(uint8_t state);
/* Turn the looks the sampler stored into edge times. */
void buttons_take(void);
/* Report the edges whose confirmation deadline has come (once every edge before it is decoded:
 * call buttons_take first). */
void buttons_confirm(void);

extern uint8_t buttons_waiting;
extern uint8_t buttons_queue_head, buttons_queue_tail;

/* The main loop asks these on every pass: inline, and cheap when there is nothing to do. */
extern uint8_t buttons_view; /* the state the sampler compared its next look with, as last decoded */
static inline uint8_t buttons_fresh(void) {
    return (uint8_t)(sampler_full + RAW_SLOT_SIZE) != sampler_head || sampler_last != buttons_view;
}

static inline uint8_t buttons_queued(void) {
    return buttons_queue_head != buttons_queue_tail;
}
void buttons_set_debounce(uint32_t confirm_ticks, uint32_t mask_ticks);

/* The queue of confirmed events waiting for the serial line. */
uint8_t buttons_peek(button_event *event);
void buttons_pop(void);
uint16_t buttons_next_seq(void);
uint16_t buttons_dropped(void);
uint16_t buttons_noise(void);
uint8_t buttons_held(void);

#endif
