/*
 * Framing over the UART (PROTOCOL.md): A5, type, length, payload, CRC-16/CCITT-FALSE.
 *
 * Both directions work a byte at a time from the main loop, computing the CRC as the bytes go,
 * so no call takes long enough for the receiver to overrun at 1 Mbaud (a byte every 10 us).
 */
#include <avr/io.h>
#include <avr/pgmspace.h>

#include "board.h"
#include "link.h"

/* CRC-16/CCITT-FALSE, a byte at a time: 512 bytes of flash (of 32 K) buy a CRC step of a few
 * cycles, which the receiver needs to keep up with a line full of bad frames. Entry i is the CRC
 * register's update for the byte i in its top half. */
static const uint16_t crc_table[256] PROGMEM = {
    0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50A5, 0x60C6, 0x70E7,
    0x8108, 0x9129, 0xA14A, 0xB16B, 0xC18C, 0xD1AD, 0xE1CE, 0xF1EF,
    0x1231, 0x0210, 0x3273, 0x2252, 0x52B5, 0x4294, 0x72F7, 0x62D6,
    0x9339, 0x8318, 0xB37B, 0xA35A, 0xD3BD, 0xC39C, 0xF3FF, 0xE3DE,
    0x2462, 0x3443, 0x0420, 0x1401, 0x64E6, 0x74C7, 0x44A4, 0x5485,
    0xA56A, 0xB54B, 0x8528, 0x9509, 0xE5EE, 0xF5CF, 0xC5AC, 0xD58D,
    0x3653, 0x2672, 0x1611, 0x0630, 0x76D7, 0x66F6, 0x5695, 0x46B4,
    0xB75B, 0xA77A, 0x9719, 0x8738, 0xF7DF, 0xE7FE, 0xD79D, 0xC7BC,
    0x48C4, 0x58E5, 0x6886, 0x78A7, 0x0840, 0x1861, 0x2802, 0x3823,
    0xC9CC, 0xD9ED, 0xE98E, 0xF9AF, 0x8948, 0x9969, 0xA90A, 0xB92B,
    0x5AF5, 0x4AD4, 0x7AB7, 0x6A96, 0x1A71, 0x0A50, 0x3A33, 0x2A12,
    0xDBFD, 0xCBDC, 0xFBBF, 0xEB9E, 0x9B79, 0x8B58, 0xBB3B, 0xAB1A,
    0x6CA6, 0x7C87, 0x4CE4, 0x5CC5, 0x2C22, 0x3C03, 0x0C60, 0x1C41,
    0xEDAE, 0xFD8F, 0xCDEC, 0xDDCD, 0xAD2A, 0xBD0B, 0x8D68, 0x9D49,
    0x7E97, 0x6EB6, 0x5ED5, 0x4EF4, 0x3E13, 0x2E32, 0x1E51, 0x0E70,
    0xFF9F, 0xEFBE, 0xDFDD, 0xCFFC, 0xBF1B, 0xAF3A, 0x9F59, 0x8F78,
    0x9188, 0x81A9, 0xB1CA, 0xA1EB, 0xD10C, 0xC12D, 0xF14E, 0xE16F,
    0x1080, 0x00A1, 0x30C2, 0x20E3, 0x5004, 0x4025, 0x7046, 0x6067,
    0x83B9, 0x9398, 0xA3FB, 0xB3DA, 0xC33D, 0xD31C, 0xE37F, 0xF35E,
    0x02B1, 0x1290, 0x22F3, 0x32D2, 0x4235, 0x5214, 0x6277, 0x7256,
    0xB5EA, 0xA5CB, 0x95A8, 0x8589, 0xF56E, 0xE54F, 0xD52C, 0xC50D,
    0x34E2, 0x24C3, 0x14A0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
    0xA7DB, 0xB7FA, 0x8799, 0x97B8, 0xE75F, 0xF77E, 0xC71D, 0xD73C,
    0x26D3, 0x36F2, 0x0691, 0x16B0, 0x6657, 0x7676, 0x4615, 0x5634,
    0xD94C, 0xC96D, 0xF90E, 0xE92F, 0x99C8, 0x89E9, 0xB98A, 0xA9AB,
    0x5844, 0x4865, 0x7806, 0x6827, 0x18C0, 0x08E1, 0x3882, 0x28A3,
    0xCB7D, 0xDB5C, 0xEB3F, 0xFB1E, 0x8BF9, 0x9BD8, 0xABBB, 0xBB9A,
    0x4A75, 0x5A54, 0x6A37, 0x7A16, 0x0AF1, 0x1AD0, 0x2AB3, 0x3A92,
    0xFD2E, 0xED0F, 0xDD6C, 0xCD4D, 0xBDAA, 0xAD8B, 0x9DE8, 0x8DC9,
    0x7C26, 0x6C07, 0x5C64, 0x4C45, 0x3CA2, 0x2C83, 0x1CE0, 0x0CC1,
    0xEF1F, 0xFF3E, 0xCF5D, 0xDF7C, 0xAF9B, 0xBFBA, 0x8FD9, 0x9FF8,
    0x6E17, 0x7E36, 0x4E55, 0x5E74, 0x2E93, 0x3EB2, 0x0ED1, 0x1EF0,
};

uint16_t crc16_update(uint16_t crc, uint8_t byte) {
    return (uint16_t)(crc << 8) ^ pgm_read_word(&crc_table[(uint8_t)(crc >> 8) ^ byte]);
}

void link_init(uint8_t (*first)(frame *out)) {
    UCSR0A = _BV(U2X0); /* before the baud rate: 1 Mbaud is exact with U2X */
    UBRR0H = 0;
    UBRR0L = (uint8_t)(F_CPU / (8 * BAUD) - 1);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(TXEN0);
    /* The first frame is built before the receiver opens: building one takes longer than the
     * receiver can hold bytes (three), and a host may send as soon as the line is up. */
    link_send_next(first);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0);
}

/* -- out ---------------------------------------------------------------------------------- */

/* The frame being sent, whole (A5, type, length, payload, CRC), built when it starts: each byte
 * then costs the main loop a store, as the receiver needs its time when the line is busy both ways. */
static uint8_t out_bytes[3 + MAX_PAYLOAD + 2];
static uint8_t out_count, out_position;
uint8_t link_sending;

static void send(uint8_t byte) {
    UCSR0A = _BV(U2X0) | _BV(TXC0); /* clears "transmit complete" for link_sent */
    UDR0 = byte;
}

uint8_t link_sent(void) {
    return !link_sending && (UCSR0A & _BV(TXC0));
}

static uint8_t __attribute__((noinline)) start_frame(uint8_t (*next)(frame *out)) {
    frame out;
    if (!next(&out)) {
        return 0;
    }
    out_bytes[0] = FRAME_SYNC;
    out_bytes[1] = out.type;
    out_bytes[2] = out.length;
    uint16_t crc = crc16_update(crc16_update(0xFFFF, out.type), out.length);
    uint8_t at = 3;
    for (uint8_t i = 0; i < out.length; i++) {
        out_bytes[at++] = out.payload[i];
        crc = crc16_update(crc, out.payload[i]);
    }
    put16(&out_bytes[at], crc);
    out_count = (uint8_t)(at + 2);
    out_position = 0;
    return 1;
}

static void send_more(void) {
    uint8_t p = out_position++;
    if (out_position == out_count) {
        link_sending = 0;
    }
    send(out_bytes[p]);
}

void link_send_next(uint8_t (*next)(frame *out)) {
    if (!link_sending) {
        if (!start_frame(next)) {
            return;
        }
        link_sending = 1;
    }
    send_more();
}

/* The receiver's long steps (a whole frame's CRC, a bad frame read again) call this between
 * bytes, so a report being sent never waits for them. */
static inline void keep_sending(void) {
    if (link_sending && (UCSR0A & _BV(UDRE0))) {
        send_more();
    }
}

/* -- in ----------------------------------------------------------------------------------- */

/* The frame being read: its bytes after the A5 (kept so that a bad frame can be searched for the
 * next A5), and its whole length once its header is read. Every command is short (PROTOCOL.md), so
 * a bad frame's bytes are few to read again. */
#define COMMAND_FRAME_MAX (3 + 5 + 2)
static uint8_t in_bytes[COMMAND_FRAME_MAX];
static uint8_t in_count; /* bytes of the frame read so far, its A5 included (0: between frames) */
static uint8_t in_total;
static uint16_t rx_errors;
uint32_t link_received_at;

uint16_t link_rx_errors(void) {
    return rx_errors;
}

/* The one length of each command type (PROTOCOL.md), 0 for a type the board does not know. */
static uint8_t command_length(uint8_t type) {
    switch (type) {
    case C_LAMPS: return 3;
    case C_BEEP: return 5;
    case C_RESET: return 1;
    case C_SYNC: return 4;
    case C_HELLO_REQUEST: return 1;
    case C_DEBOUNCE: return 5;
    default: return 0;
    }
}

static void (*handler)(const frame *command); /* link_receive's, for the bytes it reads */
static inline void take(uint8_t byte) __attribute__((always_inline));

/* A bad frame: count it, then read its bytes after the A5 again from the first A5 among them, so
 * a frame that starts inside it is found. Each byte read again is written at most where an
 * earlier one was, never over one still to be read, so this may nest (a bad frame inside a bad
 * frame) without a second buffer. */
static void __attribute__((noinline)) refuse(void) {
    count_up(&rx_errors);
    uint8_t count = in_count;
    uint8_t i = 1;
    while (i < count && in_bytes[i] != FRAME_SYNC) {
        i++; /* bytes before the next A5 would only be skipped */
    }
    in_count = 0;
    keep_sending();
    for (; i < count; i++) {
        take(in_bytes[i]);
    }
}

/* The last byte of a frame with a good header: check the CRC, hand the command over. Kept out of
 * take() so that the bytes before it cost no stack frame. */
static void __attribute__((noinline)) complete(void) {
    /* A SYNC is stamped with the time its last byte was read. */
    link_received_at = clock_now();
    uint8_t at = in_count;
    uint16_t crc = 0xFFFF;
    for (uint8_t i = 1; i < at - 2; i++) {
        crc = crc16_update(crc, in_bytes[i]);
    }
    keep_sending();
    if (crc != get16(&in_bytes[at - 2])) {
        refuse();
        return;
    }
    frame command;
    command.type = in_bytes[1];
    command.length = in_bytes[2];
    for (uint8_t i = 0; i < command.length; i++) {
        command.payload[i] = in_bytes[3 + i];
    }
    in_count = 0;
    handler(&command);
}

/* One byte, as cheap as the line is fast: at 1 Mbaud a byte comes every 160 cycles, and a line
 * full of bad frames must leave the main loop time for the buttons and the reports (the CRC is
 * computed once, over a whole frame). A header whose type the board does not know, or whose length
 * is not its type's, is bad at its third byte: waiting for the CRC of a length nobody sends would
 * hold the frames behind it. */
static inline void take(uint8_t byte) {
    uint8_t at = in_count;
    if (at == 0) {
        if (byte == FRAME_SYNC) {
            in_count = 1; /* in_bytes[0] is never read: a frame's first byte is its A5 */
        }
        return; /* between frames: anything but an A5 is skipped */
    }
    in_bytes[at++] = byte;
    in_count = at;
    if (at == 3) {
        uint8_t length = command_length(in_bytes[1]);
        if (length && length == byte) {
            in_total = (uint8_t)(5 + length);
            return;
        }
        /* A bad header: what refuse() does for its two bytes after the A5, inline: a line of
         * nothing but A5 makes every byte a bad header, and the call alone delays reports by more
         * than a frame (measured: 233 us against 20 us). */
        count_up(&rx_errors);
        if (in_bytes[1] == FRAME_SYNC) {
            in_bytes[1] = byte;
            in_count = 2;
        } else {
            in_count = byte == FRAME_SYNC;
        }
    } else if (at > 3 && at == in_total) {
        complete();
    }
}

void link_receive(void (*handle)(const frame *command)) {
    /* Everything the UART holds (up to two bytes, and the one arriving meanwhile). */
    handler = handle;
    uint8_t status;
    while ((status = UCSR0A) & _BV(RXC0)) {
        uint8_t byte = UDR0;
        if (status & (_BV(FE0) | _BV(DOR0))) {
            count_up(&rx_errors);
        }
        take(byte);
        keep_sending();
    }
}
