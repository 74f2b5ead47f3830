"Setup for scruples, driven by settings.ini (nbdev 2 layout; no pkg_resources)."
from configparser import ConfigParser
from pathlib import Path
import setuptools, shlex
from setuptools.command.build_py import build_py

cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
c = cfg['DEFAULT']

licenses = {'apache2': ('Apache-2.0', 'OSI Approved :: Apache Software License')}  # (SPDX expression, classifier)
# setuptools >= 77 takes the licence as an SPDX expression and warns about a licence classifier; older ones want both
SPDX = int(setuptools.__version__.split('.')[0]) >= 77
# nbdev's `status` (settings.ini) indexes this list: 3 is '4 - Beta', as PyPI's trove classifiers number them
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive']
lic = licenses[c['license']]
requirements = shlex.split(c.get('requirements', ''))
dev_requirements = shlex.split(c.get('dev_requirements', ''))

GUIDE = Path('nbs')/'guides'/'your_data.ipynb'  # the one source of the guide notebook (`scruples analyze` runs it)


class build_py_with_guide(build_py):
    "Copy the guide notebook into the built package as scruples/guide_data/your_data.ipynb (a checkout uses nbs/ itself)."
    def run(self):
        super().run()
        if getattr(self, 'editable_mode', False): return  # an editable install finds the notebook in its checkout
        if not GUIDE.is_file(): raise FileNotFoundError(f'{GUIDE}: the guide notebook is missing (MANIFEST.in includes it in the sdist)')
        dest = Path(self.build_lib)/c['lib_path']/'guide_data'/GUIDE.name
        self.mkpath(str(dest.parent))
        self.copy_file(str(GUIDE), str(dest))


setuptools.setup(
    name=c['lib_name'],
    version=c['version'],
    description=c['description'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    author=c['author'],
    author_email=c['author_email'],
    **({'license_expression': lic[0]} if SPDX else {'license': lic[0]}),
    classifiers=[
        'Development Status :: ' + statuses[int(c['status'])],
        'Intended Audience :: ' + c['audience'].title(),
        *([] if SPDX else ['License :: ' + lic[1]]),
        'Natural Language :: ' + c['language'].title(),
        'Programming Language :: Python :: 3',
    ],
    url=c['git_url'],
    # the data folders (published/, reference/mcm/, guide_data/, extraction_data/) are packages too, without code:
    # named here, setuptools installs them without a 'Package would be ignored' warning for each
    packages=setuptools.find_namespace_packages(include=['scruples', 'scruples.*'], exclude=['*.__pycache__']),
    include_package_data=True,
    package_data={'scruples': ['published/*.csv', 'reference/*/*.csv', 'reference/*/*.md', 'extraction_data/*.jsonl',
                               'extraction_data/*.zst', 'extraction_data/*.md',
                               'guide_data/*.csv', 'guide_data/*.md']},
    install_requires=requirements,
    extras_require={'dev': dev_requirements},
    python_requires='>=' + c['min_python'],
    zip_safe=False,
    cmdclass={'build_py': build_py_with_guide},
    entry_points={
        'console_scripts': c['console_scripts'].split(),
        'nbdev': [f"{c['lib_path']}={c['lib_path']}._modidx:d"],
    },
)
