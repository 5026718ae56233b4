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
uint8_t buttons_waiting; /* buttons with a change being confirmed or a press masked (bit n-1) */
static uint8_t known_state; /* the folded state the last decoded snapshot showed */
static uint32_t confirm_ticks = 5000UL * TICKS_PER_US;
static uint32_t mask_ticks = 50UL * TICKS_PER_MS;

static button_event queue[EVENT_QUEUE];
uint8_t buttons_queue_head, buttons_queue_tail;
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

static uint32_t first_pass_after(uint32_t entry, uint8_t kind) {
    return entry + (kind == SAMPLER_ITERATIONS ? GAP_ENTRY : GAP_ENTRY_RESNAP);
}

/* The sampler's schedule after a stored slot: its next look, the last look before it returns,
 * and its final check. */
typedef struct {
    uint32_t next, last, final;
} schedule;

static schedule schedule_after(uint32_t instant, uint8_t kind) {
    schedule s;
    uint8_t passes = SAMPLER_ITERATIONS;
    if (kind == 0) {
        s.next = instant + GAP_CHANGE;
    } else {
        s.next = first_pass_after(instant, kind) + GAP_FIRST;
        passes = kind;
    }
    s.last = s.next + (uint32_t)(passes - 1) * GAP_IDLE;
    s.final = s.last + GAP_EXIT;
    return s;
}

/* The time of the first edge an entry snapshot shows: the interrupt's response time before it,
 * or, when the sampler had just returned, somewhere in its last instructions. */
static uint32_t entry_time(uint32_t first) {
    uint32_t earliest = first - ENTRY_LATENCY_MAX;
    if (have_previous) {
        schedule s = schedule_after(previous_instant, previous_kind);
        int32_t since_exit = (int32_t)(first - s.final);
        if (since_exit > 0 && since_exit <= EXIT_WINDOW + ENTRY_LATENCY_MAX - ENTRY_LATENCY_MIN) {
            earliest = s.final;
        }
    }
    return midpoint(earliest, first - ENTRY_LATENCY_MIN);
}

/* The time of the edges a loop snapshot shows: after the sampler's previous look. */
static uint32_t loop_time(uint32_t instant) {
    uint32_t before = instant - GAP_IDLE;
    if (have_previous) {
        schedule s = schedule_after(previous_instant, previous_kind);
        if (instant == s.next) {
            before = previous_kind ? first_pass_after(previous_instant, previous_kind) : previous_instant;
        } else if (instant == s.final + EXIT_TO_LOOP) {
            before = s.last;
        }
    }
    return midpoint(before, instant);
}

static void enqueue(uint8_t button, uint8_t edge, uint32_t ticks) {
    uint8_t next = (buttons_queue_head + 1) & (EVENT_QUEUE - 1);
    if (next == buttons_queue_tail) {
        count_up(&dropped);
        return;
    }
    button_event *e = &queue[buttons_queue_head];
    e->seq = next_seq++;
    e->button = button;
    e->edge = edge;
    e->ticks = ticks;
    buttons_queue_head = next;
}

static void edge_seen(button_state *b, uint8_t pressed, uint32_t at) {
    b->pressed = pressed;
    if ((b->phase == UP && pressed && !b->masked) || (b->phase == DOWN && !pressed)) {
        b->phase = pressed ? PRESSING : RELEASING;
        b->edge = at;
        buttons_waiting |= (uint8_t)(1 << (b - buttons));
    }
    /* Anything else is a bounce while a change is being confirmed, or a press in the mask time. */
}

uint8_t buttons_drops_seen;
uint8_t buttons_lost; /* snapshots were lost (the ring was full): the next change's time is unknown */

static void apply_state(uint8_t state, uint32_t at) {
    uint8_t changed = (uint8_t)(state ^ known_state);
    known_state = state;
    for (uint8_t bit = 0; bit < 8; bit++) {
        if (!(changed & (1 << bit))) {
            continue;
        }
        button_state *b = &buttons[button_of_bit[bit] - 1];
        uint8_t pressed = !(state & (1 << bit));
        if (buttons_lost) {
            /* Follow the level without reporting an edge; the drop is counted. */
            b->pressed = pressed;
            b->phase = pressed ? DOWN : UP;
            b->masked = 0;
            buttons_waiting &= (uint8_t)~(1 << (b - buttons));
            count_up(&dropped);
        } else {
            edge_seen(b, pressed, at);
        }
    }
    buttons_lost = 0;
}

static void take_slot(volatile uint8_t *slot, uint32_t now) {
    /* Slots are at most a few milliseconds old, so their 16-bit times unwrap against `now`. */
    uint16_t t16 = ((uint16_t)slot[2] << 8) | slot[1];
    uint32_t timer = now - (uint16_t)((uint16_t)now - t16);
    uint8_t kind = slot[3];
    if (kind == KIND_EXACT) {
        apply_state(slot[0], timer); /* the comparison build: its time, as hobby sketches use it */
        return;
    }
    uint32_t instant = timer - SNAP_TIMER_OFFSET;
    if (kind == 0) {
        apply_state(slot[0], loop_time(instant));
    } else {
        uint8_t retakes = SAMPLER_ITERATIONS - kind;
        uint32_t first = instant;
        if (retakes) {
            first -= RESNAP_DELAY + (uint32_t)(retakes - 1) * RESNAP_AGAIN;
        }
        apply_state(slot[0], entry_time(first));
        apply_state(slot[4], midpoint(instant, first_pass_after(instant, kind)));
    }
    have_previous = 1;
    previous_kind = kind;
    previous_instant = instant;
}

void buttons_take(void) {
    /* The ring's head first, then the time: every slot up to the head is older than `now`.
     * A drop happens when the ring is full, so every slot up to `head` is older than it too, and
     * the next slot stored after it shows its changes too late to time them. */
    uint8_t head = sampler_head;
    uint8_t drops = raw_dropped;
    uint32_t now = clock_now();
    uint8_t dropped_now = drops != buttons_drops_seen;
    buttons_drops_seen = drops;
    uint8_t tail = (uint8_t)(sampler_full + RAW_SLOT_SIZE);
    while (tail != head) {
        volatile uint8_t *slot = &raw_ring[tail];
        take_slot(slot, now);
        slot[3] = 0;
        sampler_full = tail;
        tail = (uint8_t)(tail + RAW_SLOT_SIZE);
    }
    if (buttons_lost) {
        /* Nothing stored since the loss: take the buttons as they are now. */
        apply_state(sampler_read(), now);
    }
    buttons_lost = dropped_now;
}

void buttons_confirm(uint32_t now) {
    for (uint8_t i = 0, bit = 1; buttons_waiting >= bit && bit; i++, bit <<= 1) {
        if (!(buttons_waiting & bit)) {
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
            buttons_waiting &= (uint8_t)~bit;
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
    if (buttons_queue_tail == buttons_queue_head) {
        return 0;
    }
    *event = queue[buttons_queue_tail];
    return 1;
}

void buttons_pop(void) {
    buttons_queue_tail = (buttons_queue_tail + 1) & (EVENT_QUEUE - 1);
}

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
