/*
 * The main loop's half of the edge timing, and the debouncing.
 *
 * Each snapshot the sampler stored shows the buttons at one instant and carries Timer1's low 16
 * bits. The edge it reveals happened after the sampler's previous look and no later than this
 * one; the cycle counts in sampler.h say when that previous look was, so the event carries the
 * middle of that interval. For the snapshot taken on entering the interrupt the interval is the
 * interrupt's response time, unless the sampler had just returned (then the edge came in its last
 * instructions).
 *
 * Debouncing comes afterwards and never moves a time: the first edge is kept, and reported once
 * the button has stayed in its new state for the confirmation time. After a press, new presses of
 * that button are ignored for the mask time.
 */
#include <avr/io.h>

#include "board.h"
#include "buttons.h"
#include "pinout.h"
#include "sampler.h"

#define EVENT_QUEUE 16 /* a power of two */

enum { UP, PRESSING, DOWN, RELEASING };

typedef struct {
    uint8_t phase;
    uint8_t pressed; /* the level the last snapshot showed */
    uint8_t masked;  /* a press was confirmed within the mask time */
    uint32_t edge;   /* the first edge of the change being confirmed */
    uint32_t press;  /* the last confirmed press */
} button_state;

/* Bit of the folded state byte -> button number (pinout.h: D2-D7 are bits 2-7, A0/A1 bits 0-1). */
static const uint8_t button_of_bit[8] = {7, 8, 1, 2, 3, 4, 5, 6};

static button_state buttons[8];
static uint8_t waiting; /* buttons with a change being confirmed or a press masked (bit n-1) */
static uint8_t known_state; /* the folded state the last decoded snapshot showed */
static uint8_t dropped_seen;
static uint32_t confirm_ticks = 5000UL * TICKS_PER_US;
static uint32_t mask_ticks = 50UL * TICKS_PER_MS;

static button_event queue[EVENT_QUEUE];
static uint8_t queue_head, queue_tail;
static uint16_t next_seq;
static uint16_t dropped;
static uint16_t noise;

/* Where the sampler's looks fell: enough to place the next snapshot. */
static uint8_t have_previous;
static uint8_t previous_kind;   /* the last slot's kind (0: a loop snapshot that stored a change) */
static uint32_t previous_instant;

static uint32_t midpoint(uint32_t after, uint32_t until) {
    /* The edge happened in (after, until]: report the middle. */
    return after + (until - after + 1) / 2;
}

/* The sampler's schedule after a stored slot: its first and second looks, the last look before
 * it returns, and its final check. */
typedef struct {
    uint32_t first, second, last, final;
} schedule;

static schedule schedule_after(uint32_t instant, uint8_t kind) {
    schedule s;
    if (kind == 0) {
        s.first = instant + GAP_CHANGE;
        s.second = s.first + GAP_IDLE;
        s.last = s.first + (uint32_t)(SAMPLER_ITERATIONS - 1) * GAP_IDLE;
    } else {
        uint8_t retakes = SAMPLER_ITERATIONS - kind;
        s.first = instant + (retakes ? GAP_ENTRY_RESNAP : GAP_ENTRY);
        s.second = s.first + GAP_FIRST;
        s.last = kind >= 2 ? s.second + (uint32_t)(kind - 2) * GAP_IDLE : s.first;
    }
    s.final = s.last + GAP_EXIT;
    return s;
}

uint32_t edge_time(uint8_t kind, uint32_t timer) {
    if (kind == KIND_EXACT) {
        return timer; /* the comparison build: its time, as hobby sketches use it */
    }
    uint32_t instant = timer - SNAP_TIMER_OFFSET;
    uint32_t estimate;
    if (kind != 0) {
        uint8_t retakes = SAMPLER_ITERATIONS - kind;
        uint32_t first = instant;
        if (retakes) {
            first -= RESNAP_DELAY + (uint32_t)(retakes - 1) * RESNAP_AGAIN;
        }
        uint32_t earliest = first - ENTRY_LATENCY_MAX;
        if (have_previous) {
            schedule s = schedule_after(previous_instant, previous_kind);
            int32_t since_exit = (int32_t)(first - s.final);
            if (since_exit > 0 && since_exit <= EXIT_WINDOW + ENTRY_LATENCY_MAX - ENTRY_LATENCY_MIN) {
                earliest = s.final; /* the edge came while the sampler was returning */
            }
        }
        estimate = midpoint(earliest, first - ENTRY_LATENCY_MIN);
    } else {
        uint32_t before = instant - GAP_IDLE;
        if (have_previous) {
            schedule s = schedule_after(previous_instant, previous_kind);
            if (instant == s.first) {
                before = previous_instant;
            } else if (previous_kind != 0 && instant == s.second) {
                before = s.first;
            } else if (instant == s.final + EXIT_TO_LOOP) {
                before = s.last;
            }
        }
        estimate = midpoint(before, instant);
    }
    have_previous = 1;
    previous_kind = kind;
    previous_instant = instant;
    return estimate;
}

static void enqueue(uint8_t button, uint8_t edge, uint32_t ticks) {
    uint8_t next = (queue_head + 1) & (EVENT_QUEUE - 1);
    if (next == queue_tail) {
        count_up(&dropped);
        return;
    }
    button_event *e = &queue[queue_head];
    e->seq = next_seq++;
    e->button = button;
    e->edge = edge;
    e->ticks = ticks;
    queue_head = next;
}

static void edge_seen(button_state *b, uint8_t pressed, uint32_t at) {
    b->pressed = pressed;
    if ((b->phase == UP && pressed && !b->masked) || (b->phase == DOWN && !pressed)) {
        b->phase = pressed ? PRESSING : RELEASING;
        b->edge = at;
        waiting |= (uint8_t)(1 << (b - buttons));
    }
    /* Anything else is a bounce while a change is being confirmed, or a press in the mask time. */
}

/* Snapshots were lost (the ring was full) before the next one. Few arguments: the ABI would pass
 * a fourth in r16, which belongs to the sampler. */
static uint8_t lost;

static void take_slot(uint8_t state, uint8_t kind, uint32_t timer) {
    uint32_t at = edge_time(kind, timer);
    uint8_t changed = (uint8_t)(state ^ known_state);
    known_state = state;
    for (uint8_t bit = 0; bit < 8; bit++) {
        if (!(changed & (1 << bit))) {
            continue;
        }
        button_state *b = &buttons[button_of_bit[bit] - 1];
        uint8_t pressed = !(state & (1 << bit));
        if (lost) {
            /* Snapshots were lost before this one: this change's time is unknown. Follow the
             * level without reporting an edge; the drop is counted. */
            b->pressed = pressed;
            b->phase = pressed ? DOWN : UP;
            count_up(&dropped);
        } else {
            edge_seen(b, pressed, at);
        }
    }
}

static void buttons_work(uint32_t now, uint8_t head, uint8_t drops) __attribute__((noinline));

uint32_t buttons_update(void) {
    /* The ring's head first, then the time: every slot up to the head is older than `now`. */
    uint8_t head = sampler_head;
    uint8_t drops = raw_dropped;
    uint32_t now = clock_now();
    if ((uint8_t)(sampler_full + RAW_SLOT_SIZE) != head || drops != dropped_seen || waiting) {
        buttons_work(now, head, drops);
    }
    return now; /* the usual pass: nothing new, nothing to confirm */
}

static void buttons_work(uint32_t now, uint8_t head, uint8_t drops) {
    uint8_t tail = (uint8_t)(sampler_full + RAW_SLOT_SIZE);
    if (drops != dropped_seen) {
        dropped_seen = drops;
        lost = 1;
    }
    /* Slots are at most a few milliseconds old, so their 16-bit times unwrap against `now`. */
    while (tail != head) {
        volatile uint8_t *slot = &raw_ring[tail];
        uint16_t t16 = ((uint16_t)slot[2] << 8) | slot[1];
        uint32_t timer = now - (uint16_t)((uint16_t)now - t16);
        take_slot(slot[0], slot[3], timer);
        lost = 0;
        slot[3] = 0;
        sampler_full = tail;
        tail = (uint8_t)(tail + RAW_SLOT_SIZE);
    }
    if (lost) {
        /* Lost snapshots and none stored since: compare with the buttons as they are now. */
        take_slot(sampler_read(), 0, now);
        lost = 0;
    }

    /* Most passes have nothing to confirm: keep them short, the serial line is waiting. */
    for (uint8_t i = 0, bit = 1; waiting >= bit && bit; i++, bit <<= 1) {
        if (!(waiting & bit)) {
            continue;
        }
        button_state *b = &buttons[i];
        if (b->masked && now - b->press >= mask_ticks) {
            b->masked = 0;
        }
        if ((b->phase == PRESSING || b->phase == RELEASING) && now - b->edge >= confirm_ticks) {
            if (b->phase == PRESSING) {
                if (b->pressed) {
                    b->phase = DOWN;
                    b->press = b->edge;
                    b->masked = mask_ticks != 0;
                    enqueue(i + 1, 1, b->edge);
                } else {
                    b->phase = UP;
                    count_up(&noise);
                }
            } else if (!b->pressed) {
                b->phase = UP;
                enqueue(i + 1, 0, b->edge);
            } else {
                b->phase = DOWN; /* the release bounced back */
            }
        }
        if (!b->masked && (b->phase == UP || b->phase == DOWN)) {
            waiting &= (uint8_t)~bit;
        }
    }
}

void buttons_init(uint8_t state) {
    known_state = state;
    for (uint8_t bit = 0; bit < 8; bit++) {
        button_state *b = &buttons[button_of_bit[bit] - 1];
        b->pressed = !(state & (1 << bit));
        b->phase = b->pressed ? DOWN : UP; /* held at power-on: its release is reported */
    }
}

void buttons_set_debounce(uint32_t confirm, uint32_t mask) {
    confirm_ticks = confirm;
    mask_ticks = mask;
}

uint8_t buttons_peek(button_event *event) {
    if (queue_tail == queue_head) {
        return 0;
    }
    *event = queue[queue_tail];
    return 1;
}

void buttons_pop(void) {
    queue_tail = (queue_tail + 1) & (EVENT_QUEUE - 1);
}

uint8_t buttons_queued(void) { return queue_head != queue_tail; }
uint16_t buttons_next_seq(void) { return next_seq; }
uint16_t buttons_dropped(void) { return dropped; }
uint16_t buttons_noise(void) { return noise; }

uint8_t buttons_held(void) {
    uint8_t held = 0;
    for (uint8_t i = 0; i < 8; i++) {
        if (buttons[i].phase == DOWN || buttons[i].phase == RELEASING) {
            held |= 1 << i;
        }
    }
    return held;
}
