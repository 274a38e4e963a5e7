"""A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
no port, no network, no package beyond Python's own. Messages are JSON, each ended by a NUL byte,
written to the browser's fd 3 and read from its fd 4.

    with Browser() as b:
        page = b.new_page(1280, 800)
        page.goto('file:///tmp/report.html')
        page.evaluate('document.title')
        page.screenshot('/tmp/report.png')
        b.errors   # console errors and uncaught exceptions of every page, as text
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

# The flags that work on Debian's chromium here: headless, as root (no sandbox), and none of the
# background connections that a machine without network refuses.
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--disable-extensions', '--disable-default-apps', '--hide-scrollbars', '--mute-audio',
         '--remote-debugging-pipe']


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable=None, timeout=30):
        self.executable = executable or find_chromium()
        self.timeout = timeout
        self.errors = []
        self._id = 0
        self._buffer = b''
        self._events = []

    def __enter__(self):
        self._profile = tempfile.mkdtemp(prefix='semsim-chromium-')
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds():  # the browser's fds 3 and 4, kept open across exec (pipes are close-on-exec)
            for fd, target in ((to_browser_r, 3), (from_browser_w, 4)):
                if fd != target:
                    os.dup2(fd, target)
                os.set_inheritable(target, True)

        self._log = open(os.path.join(self._profile, 'chromium.log'), 'wb')
        self._proc = subprocess.Popen([self.executable, *FLAGS, '--user-data-dir=' + self._profile, 'about:blank'],
                                      stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                      preexec_fn=child_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        return self

    def __exit__(self, *exc):
        try:
            self.send('Browser.close', timeout=5)
        except Exception:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._log.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b'\0' not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no answer from chromium')
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError('chromium closed the pipe (exit %s)' % self._proc.poll())
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b'\0', 1)
        message = json.loads(raw)
        self._note(message)
        return message

    def _note(self, m):
        """Console errors and exceptions, whichever page they come from."""
        method, p = m.get('method'), m.get('params', {})
        if method == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            self.errors.append('exception: %s %s' % (d.get('text', ''), d.get('exception', {}).get('description', '')))
        elif method == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            self.errors.append('console.%s: %s' % (p['type'], ' '.join(str(a.get('value', a.get('description', '')))
                                                                       for a in p.get('args', []))))
        elif method == 'Log.entryAdded' and p['entry'].get('level') == 'error':
            self.errors.append('log: %s (%s)' % (p['entry'].get('text'), p['entry'].get('url', '')))

    def send(self, method, params=None, session=None, timeout=None):
        self._id += 1
        message = {'id': self._id, 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        os.write(self._to_browser, json.dumps(message).encode() + b'\0')
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read_message(deadline)
            if m.get('id') == self._id:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m.get('result', {})
            if 'method' in m:
                self._events.append(m)

    def wait_for(self, method, session, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, m in enumerate(self._events):
                if m.get('method') == method and m.get('sessionId') == session:
                    del self._events[i]
                    return m
            self._events.append(self._read_message(deadline))

    def new_page(self, width, height):
        target = self.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        session = self.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        page = Page(self, session)
        for domain in ('Page', 'Runtime', 'Log'):
            self.send(domain + '.enable', session=session)
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False}, session=session)
        return page


class Page:
    def __init__(self, browser, session):
        self.b, self.session = browser, session

    def send(self, method, params=None):
        return self.b.send(method, params, self.session)

    def goto(self, url):
        self.b._events = [m for m in self.b._events if m.get('method') != 'Page.loadEventFired']
        self.send('Page.navigate', {'url': url})
        self.b.wait_for('Page.loadEventFired', self.session)
        self.settle()

    def evaluate(self, expression):
        r = self.send('Runtime.evaluate', {'expression': expression, 'returnByValue': True, 'awaitPromise': True})
        if 'exceptionDetails' in r:
            raise RuntimeError('%s: %s' % (expression, r['exceptionDetails']))
        return r['result'].get('value')

    def settle(self):
        """Until the page has drawn what its last event asked for (two animation frames)."""
        self.evaluate('new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))')

    def wheel(self, x, y, delta_y, delta_x=0):
        self.send('Input.dispatchMouseEvent', {'type': 'mouseWheel', 'x': x, 'y': y, 'deltaX': delta_x, 'deltaY': delta_y})
        self.settle()

    def click(self, x, y):
        for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
            self.send('Input.dispatchMouseEvent', {'type': kind, 'x': x, 'y': y, 'button': 'left', 'clickCount': 1})
        self.settle()

    def drag(self, x0, y0, x1, y1, steps=8):
        self.send('Input.dispatchMouseEvent', {'type': 'mouseMoved', 'x': x0, 'y': y0})
        self.send('Input.dispatchMouseEvent', {'type': 'mousePressed', 'x': x0, 'y': y0, 'button': 'left', 'clickCount': 1})
        for i in range(1, steps + 1):
            self.send('Input.dispatchMouseEvent', {'type': 'mouseMoved', 'x': x0 + (x1 - x0) * i / steps,
                                                   'y': y0 + (y1 - y0) * i / steps, 'button': 'left', 'buttons': 1})
        self.send('Input.dispatchMouseEvent', {'type': 'mouseReleased', 'x': x1, 'y': y1, 'button': 'left', 'clickCount': 1})
        self.settle()

    def screenshot(self, path, full_page=False):
        params = {'format': 'png'}
        if full_page:
            size = self.evaluate('[document.documentElement.scrollWidth, document.documentElement.scrollHeight]')
            params['clip'] = {'x': 0, 'y': 0, 'width': size[0], 'height': min(size[1], 6000), 'scale': 1}
            params['captureBeyondViewport'] = True
        with open(path, 'wb') as f:
            f.write(base64.b64decode(self.send('Page.captureScreenshot', params)['data']))
