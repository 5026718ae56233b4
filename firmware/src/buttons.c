/*
 * The main loop's half of the edge timing, and the debouncing.
 *
 * Each look the sampler stored shows the buttons at one instant and carries Timer1's low 16 bits.
 * The edge it reveals happened after the sampler's previous look and no later than this one; the
 * cycle counts in sampler.h say when that previous look was, so the event carries the middle of
 * that interval. For the look taken on entering the interrupt the interval is the interrupt's
 * response time, unless the sampler had just returned (then the edge came in its last
 * instructions).
 *
 * Looks the sampler could not store (a full ring) are found by the state the sampler says it saw
 * last: a button whose level changed unseen keeps following its level, and if that change was a
 * press or a release its time is unknown, so it is counted as dropped, never reported wrong.
 *
 * Debouncing comes afterwards and never moves a time: the first edge is kept, and reported when
 * the button is still in its new state at the confirmation deadline (the first edge plus the
 * confirmation time); bounces in between change nothing. The level at the deadline is decided from
 * the edge times, never from how far the decoding has got: an edge stamped after the deadline
 * settles the deadline first, with the level before it, and a deadline is settled by the clock
 * only once every edge before it has been decoded (buttons_take says until when). After a press,
 * new presses of that button are ignored for the mask time.
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
    uint8_t pressed; /* the level the last look showed */
    uint8_t masked;  /* a press was confirmed within the mask time */
    uint32_t edge;   /* the first edge of the change being confirmed */
    uint32_t press;  /* the last confirmed press */
} button_state;

/* Bit of the folded state byte -> button number (pinout.h: D2-D7 are bits 2-7, A0/A1 bits 0-1). */
static const uint8_t button_of_bit[8] = {7, 8, 1, 2, 3, 4, 5, 6};

static button_state buttons[8];
uint8_t buttons_waiting; /* buttons with a change being confirmed or a press masked (bit n-1) */
static uint8_t known_state; /* the folded state the last decoded look showed */
static uint32_t confirm_ticks = 5000UL * TICKS_PER_US;
static uint32_t mask_ticks = 50UL * TICKS_PER_MS;
static uint32_t decoded_until; /* every edge before this instant has been decoded */
static uint32_t next_due;      /* the earliest deadline or mask end of a waiting button */

/* An edge can reach the sampler's ring this long after it happened (the interrupt's response). */
#define DECODE_MARGIN (4 * TICKS_PER_US)

static button_event queue[EVENT_QUEUE];
uint8_t buttons_queue_head, buttons_queue_tail;
static uint16_t next_seq;
static uint16_t dropped;
static uint16_t noise;

/* Where the sampler's looks fell: enough to place the next look. */
static uint8_t have_previous;
static uint8_t previous_kind;   /* the last slot's kind */
static uint32_t previous_instant;
uint8_t buttons_view;

static uint32_t midpoint(uint32_t after, uint32_t until) {
    /* The edge happened in (after, until]: report the middle. */
    return after + (until - after + 1) / 2;
}

/* The sampler's schedule after a stored slot: its next look, the last look before it returns,
 * and its final check. */
typedef struct {
    uint32_t next, last, final;
} schedule;

static schedule schedule_after(uint32_t instant, uint8_t kind) {
    schedule s;
    s.next = instant + (kind == KIND_ENTRY ? GAP_ENTRY + GAP_SECOND + GAP_FIRST : GAP_CHANGE);
    s.last = s.next + (uint32_t)SAMPLER_ITERATIONS * GAP_IDLE;
    s.final = s.last + GAP_EXIT;
    return s;
}

/* The time of the first edge an entry look shows: the interrupt's response time before it, or,
 * when the sampler had just returned, somewhere in its last instructions. */
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

/* The time of the edges a loop look shows: after the sampler's previous look. */
static uint32_t loop_time(uint32_t instant) {
    uint32_t before = instant - GAP_IDLE;
    if (have_previous) {
        schedule s = schedule_after(previous_instant, previous_kind);
        if (instant == s.next) {
            before = previous_kind == KIND_ENTRY ? previous_instant + GAP_ENTRY + GAP_SECOND : previous_instant;
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

static void due_at(uint32_t at) {
    if (!buttons_waiting || (int32_t)(at - next_due) < 0) {
        next_due = at;
    }
}

/* The deadline of the change being confirmed has come: decide it with the level the button had
 * then. */
static void settle(button_state *b, uint8_t index) {
    if (b->phase == PRESSING) {
        if (b->pressed) {
            b->phase = DOWN;
            b->press = b->edge;
            b->masked = mask_ticks != 0;
            enqueue(index + 1, 1, b->edge);
        } else {
            b->phase = UP;
            count_up(&noise);
        }
    } else if (!b->pressed) {
        b->phase = UP;
        enqueue(index + 1, 0, b->edge);
    } else {
        b->phase = DOWN; /* the release bounced back */
    }
}

/* What has come due for one button by `when` (every edge before it decoded). Signed: `when` may
 * be a little before the latest edge decoded (the clock settles deadlines DECODE_MARGIN late). */
static void catch_up(button_state *b, uint8_t index, uint32_t when) {
    if ((b->phase == PRESSING || b->phase == RELEASING) && (int32_t)(when - b->edge) >= (int32_t)confirm_ticks) {
        settle(b, index);
    }
    if (b->masked && (int32_t)(when - b->press) >= (int32_t)mask_ticks) {
        b->masked = 0;
    }
}

static void edge_seen(button_state *b, uint8_t pressed, uint32_t at) {
    uint8_t index = (uint8_t)(b - buttons);
    catch_up(b, index, at); /* a deadline before this edge is decided with the level before it */
    b->pressed = pressed;
    if ((b->phase == UP && pressed && !b->masked) || (b->phase == DOWN && !pressed)) {
        b->phase = pressed ? PRESSING : RELEASING;
        b->edge = at;
        due_at(at + confirm_ticks);
        buttons_waiting |= (uint8_t)(1 << index);
    }
    /* Anything else is a bounce while a change is being confirmed, or a press in the mask time. */
}

/* The buttons whose bit differs between `state` and the last state applied: each is an edge at
 * `at`, or, when `seen` is 0, a change the sampler saw but could not store (a full ring), known
 * only to have happened before `at`. A bounce of a change being confirmed is followed as any
 * bounce; a press or a release whose first edge was lost is followed without being reported, and
 * counted. */
static void apply(uint8_t state, uint32_t at, uint8_t seen) {
    uint8_t changed = (uint8_t)(state ^ known_state);
    known_state = state;
    for (uint8_t bit = 0; bit < 8; bit++) {
        if (!(changed & (1 << bit))) {
            continue;
        }
        button_state *b = &buttons[button_of_bit[bit] - 1];
        uint8_t pressed = !(state & (1 << bit));
        if (seen || b->phase == PRESSING || b->phase == RELEASING || (b->masked && pressed)) {
            edge_seen(b, pressed, at);
            continue;
        }
        b->pressed = pressed;
        if (b->phase == (pressed ? UP : DOWN)) {
            b->phase = pressed ? DOWN : UP;
            count_up(&dropped);
        }
    }
}

static void apply_state(uint8_t state, uint32_t at) {
    apply(state, at, 1);
}

/* Slots are at most a few milliseconds old, so their 16-bit times unwrap against `now`. */
static uint32_t unwrap(volatile uint8_t *slot, uint32_t now) {
    uint16_t t16 = ((uint16_t)slot[2] << 8) | slot[1];
    return now - (uint16_t)((uint16_t)now - t16);
}

static void take_slot(volatile uint8_t *slot, uint32_t now) {
    uint8_t kind = slot[3];
    if (kind == KIND_EXACT) {
        apply_state(slot[0], unwrap(slot, now)); /* the comparison build: its time, as hobby sketches use it */
        buttons_view = slot[0];
        return;
    }
    uint32_t instant;
    if (kind == KIND_ENTRY) {
        instant = unwrap(slot, now) - SNAP_TIMER_OFFSET_ENTRY;
        if (slot[5] != buttons_view) {
            /* Looks were lost: the sampler ran on after the last slot, so when it returned is
             * unknown (entry_time must not place an edge in its last instructions). */
            apply(slot[5], instant, 0);
            have_previous = 0;
        }
        apply_state(slot[0], entry_time(instant));
        uint32_t first = instant + GAP_ENTRY;
        apply_state(slot[4], midpoint(instant, first));
        apply_state(slot[6], midpoint(first, first + GAP_SECOND));
        buttons_view = slot[6];
    } else {
        /* Timer1's low byte, less than 256 cycles after the previous stored look (sampler.h). */
        uint32_t look = previous_instant + (previous_kind == KIND_ENTRY ? GAP_ENTRY + GAP_SECOND : 0);
        instant = look + (uint8_t)(slot[1] - SNAP_TIMER_OFFSET - (uint8_t)look);
        apply_state(slot[0], loop_time(instant));
        buttons_view = slot[0];
    }
    have_previous = 1;
    previous_kind = kind;
    previous_instant = instant;
}

void buttons_take(void) {
    /* The ring's head first, then the time: every slot up to the head is older than `now`. */
    uint8_t head = sampler_head;
    uint32_t now = clock_now();
    decoded_until = now - DECODE_MARGIN;
    uint8_t tail = (uint8_t)(sampler_full + RAW_SLOT_SIZE);
    while (tail != head) {
        volatile uint8_t *slot = &raw_ring[tail];
        take_slot(slot, now);
        slot[3] = 0;
        sampler_full = tail;
        tail = (uint8_t)(tail + RAW_SLOT_SIZE);
    }
    /* Every slot is read: what the sampler saw last should be what they showed, unless looks were
     * lost to a full ring since. (The sampler may have run meanwhile: then its new slot says so
     * next time.) */
    uint8_t last = sampler_last;
    if (last != buttons_view && sampler_head == head) {
        apply(last, now - DECODE_MARGIN, 0);
        buttons_view = last;
        have_previous = 0; /* as in take_slot: when the sampler returned is unknown */
    }
}

void buttons_confirm(void) {
    /* Decided on the decoded edges only: a bounce the sampler has stored but the main loop not yet
     * decoded must not make a press look released at its deadline. */
    uint32_t when = decoded_until;
    if ((int32_t)(when - next_due) < 0) {
        return;
    }
    uint8_t waiting = 0;
    uint32_t due = 0;
    for (uint8_t i = 0, bit = 1; buttons_waiting >= bit && bit; i++, bit <<= 1) {
        if (!(buttons_waiting & bit)) {
            continue;
        }
        button_state *b = &buttons[i];
        catch_up(b, i, when);
        uint32_t at;
        if (b->phase == PRESSING || b->phase == RELEASING) {
            at = b->edge + confirm_ticks;
        } else if (b->masked) {
            at = b->press + mask_ticks;
        } else {
            continue;
        }
        if (!waiting || (int32_t)(at - due) < 0) {
            due = at;
        }
        waiting |= bit;
    }
    buttons_waiting = waiting;
    next_due = due;
}

void buttons_init(uint8_t state) {
    known_state = state;
    buttons_view = state;
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
