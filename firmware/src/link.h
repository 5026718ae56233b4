/* The serial link: frames out (one byte per call, so the main loop never waits) and in. */
#ifndef LINK_H
#define LINK_H

#include <stdint.h>

typedef struct {
    uint8_t type;
    uint8_t length;
    uint8_t payload[32];
} frame;

#include <avr/io.h>

/* Sets up the UART and starts sending the frame `first` fills (the hello). */
void link_init(uint8_t (*first)(frame *out));
/* Send the next byte (the UART can take one); `next` fills the next frame to send (returns 0
 * when there is nothing to send). */
void link_send_next(uint8_t (*next)(frame *out));
/* Take the byte that arrived; `handle` gets each command frame with a good CRC. */
void link_receive(void (*handle)(const frame *command));
extern uint8_t link_sending;
/* When the last byte of the command being handled was read (a SYNC is stamped with it). */
extern uint32_t link_received_at;

/* The main loop calls these often: inline checks, calls only when there is work. */
static inline void link_service(uint8_t (*next)(frame *out), void (*handle)(const frame *command),
                                uint8_t pending) {
    /* The transmitter first: a byte waiting to go is a report waiting, while the receiver holds
     * three bytes before it loses one. */
    if ((UCSR0A & _BV(UDRE0)) && (link_sending || pending)) {
        link_send_next(next);
    }
    if (UCSR0A & _BV(RXC0)) {
        link_receive(handle);
    }
}
uint16_t link_rx_errors(void);
/* 1 once every byte handed to the UART has left the line. */
uint8_t link_sent(void);
uint16_t crc16_update(uint16_t crc, uint8_t byte);

static inline void put16(uint8_t *at, uint16_t value) {
    at[0] = (uint8_t)value;
    at[1] = (uint8_t)(value >> 8);
}

static inline void put32(uint8_t *at, uint32_t value) {
    put16(at, (uint16_t)value);
    put16(at + 2, (uint16_t)(value >> 16));
}

static inline uint16_t get16(const uint8_t *at) {
    return (uint16_t)(at[0] | ((uint16_t)at[1] << 8));
}

#endif
