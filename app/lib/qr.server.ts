import { renderSVG } from 'uqr'

/**
 * An authenticator enrolment with its otpauth link drawn as a QR code by the server (uqr, no
 * dependencies), so a phone's authenticator app scans it from the screen and no QR code library
 * reaches the browser. Black on white with a quiet zone, whatever the theme: cameras need it.
 */
export function withQrCode<E extends { otpauthUri: string }>(enrollment: E): E & { qrSvg: string } {
  return { ...enrollment, qrSvg: renderSVG(enrollment.otpauthUri, { border: 4 }) }
}
