// The console's only script (served as /console.js; the page works without
// it): files dropped on the zone join the file picker, the Copy button
// copies the Comment line, and the button says when it is working.
'use strict';
document.addEventListener('DOMContentLoaded', function () {
	var drop = document.getElementById('drop');
	var files = document.getElementById('files');
	if (drop && files) {
		['dragenter', 'dragover'].forEach(function (t) {
			drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add('over'); });
		});
		['dragleave', 'drop'].forEach(function (t) {
			drop.addEventListener(t, function () { drop.classList.remove('over'); });
		});
		drop.addEventListener('drop', function (e) {
			e.preventDefault();
			if (!e.dataTransfer || !e.dataTransfer.files.length)
				return;
			// Keep what was chosen before and add the dropped files.
			var dt = new DataTransfer();
			Array.prototype.forEach.call(files.files, function (f) { dt.items.add(f); });
			Array.prototype.forEach.call(e.dataTransfer.files, function (f) { dt.items.add(f); });
			files.files = dt.files;
		});
	}
	var form = document.getElementById('diagnose-form');
	var button = document.getElementById('diagnose');
	if (form && button) {
		form.addEventListener('submit', function () {
			button.disabled = true;
			button.textContent = 'Diagnosing…';
		});
	}
	var copy = document.getElementById('copy-comment');
	var comment = document.getElementById('verdict-comment');
	if (copy && comment) {
		copy.addEventListener('click', function () {
			comment.select();
			var done = function () { copy.textContent = 'Copied'; };
			if (navigator.clipboard && navigator.clipboard.writeText)
				navigator.clipboard.writeText(comment.value).then(done, function () { document.execCommand('copy'); done(); });
			else {
				document.execCommand('copy');
				done();
			}
		});
	}
});
